/*
 * screenshot.c — the screenshot hook: ../chrome/screenshot.png of this run's load, else a
 * browser of its own.  Built as on_Snapshot__30_screenshot.bin beside this file
 * from _lib/derived.c, which says how (its header is this hook's
 * specification); browser.sh beside it is the plugin's own browser.
 */
#define DERIVED_PREFIX "SCREENSHOT"
#define DERIVED_FILE "screenshot.png"
#include "../_lib/derived.c"
