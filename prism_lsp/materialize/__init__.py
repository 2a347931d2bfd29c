"""materialize package."""
