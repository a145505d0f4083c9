// Package safeout holds the two checks every command makes before it
// writes, so that no command deletes or replaces what it did not write and
// no path from an input file leads out of its tree:
//
//   - Contained resolves the symlinks of every component of a path that
//     exists at the moment of the call and says whether the result is still
//     inside a root folder (resolved the same way). Callers then write to the
//     resolved path, so what was checked is what is written. Paths that come
//     from input files (docs.out, docs.copy.include) go through it; paths on
//     the command line are the user's choice and do not.
//   - ReplaceDir replaces a whole output folder (the site, a Vale style)
//     atomically, but only when the folder is absent, empty, or holds
//     nothing but files an earlier run wrote: each run leaves a manifest
//     (ManifestName) listing every file it wrote with its SHA-256, and a
//     folder with any other entry, a changed file, or no manifest is
//     refused (*NotOursError). WriteFiles does the same for loose files
//     written into a folder the user owns (snippets --out): an existing file
//     is replaced only when the manifest says retryspec wrote it, unchanged,
//     or when it already holds the new content.
//
// The atomic part (temporary file or folder beside the target, then a
// rename or an exchange) is internal/atomicwrite; this package decides
// whether a write may happen at all. Outputs still to come (storage --out,
// verify reports) use it the same way. It imports nothing of ours but
// internal/atomicwrite.
package safeout
