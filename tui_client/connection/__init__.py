"""The client's side of a server: HTTP, the sockets, fetched replays, accounts and the saved config."""
