"""What each side is sent: a seat's, a spectator's or an auditor's view, and the sockets' messages."""
