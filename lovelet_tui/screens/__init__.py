"""One screen per file, each with its sibling stylesheet."""
