"""Read-only questions about code: names and scopes, qualified names, statement shapes."""
