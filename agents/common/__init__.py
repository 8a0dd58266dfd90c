"""What every agent shares: parameter checks and the search clock."""
