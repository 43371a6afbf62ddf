/*
 * dom.c — the dom hook: ../chrome/output.html of this run's load, else a
 * browser of its own.  Built as on_Snapshot__32_dom.bin beside this file
 * from _lib/derived.c, which says how (its header is this hook's
 * specification); browser.sh beside it is the plugin's own browser.
 */
#define DERIVED_PREFIX "DOM"
#define DERIVED_FILE "output.html"
#include "../_lib/derived.c"
