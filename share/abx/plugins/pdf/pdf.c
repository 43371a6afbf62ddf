/*
 * pdf.c — the pdf hook: ../chrome/output.pdf of this run's load, else a
 * browser of its own.  Built as on_Snapshot__31_pdf.bin beside this file
 * from _lib/derived.c, which says how (its header is this hook's
 * specification); browser.sh beside it is the plugin's own browser.
 */
#define DERIVED_PREFIX "PDF"
#define DERIVED_FILE "output.pdf"
#include "../_lib/derived.c"
