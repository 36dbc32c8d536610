"""The server's logic, between the HTTP routes and the event store."""
