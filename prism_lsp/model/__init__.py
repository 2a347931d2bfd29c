"""Pure data: the manifest, candidates, program outcomes and the panel report."""
