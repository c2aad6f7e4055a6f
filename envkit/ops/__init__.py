"""envkit's operations: typed functions that both the CLI (``envkit.commands``) and the library
(``envkit.api``) call; each takes parsed inputs and returns a result object, never prints."""
