/*
 * plugin.h — finding plugins and their hooks, and choosing which run.
 *
 * Search path, first match of a name wins (a plugin shadows later ones of
 * the same name):
 *   1. each directory of $ABX_PLUGINS_DIR (colon-separated);
 *   2. DIR/plugins;
 *   3. $ABX_SHARE_DIR/plugins if $ABX_SHARE_DIR is set, else
 *      <exe>/../share/abx/plugins (the running binary's, via /proc/self/exe,
 *      so that an uninstalled build finds its own plugins), then
 *      ABX_SHAREDIR/plugins (compiled in).
 * A plugin is a directory whose name passes name_valid(), does not start
 * with "." or "_", and is not shaped like an id.  It may hold config.json
 * ("properties", "required_plugins", "required_binaries") and hook files.
 *
 * A hook is an executable regular file (symlinks followed) named
 *     on_<Family>__[<NN>_]<desc>[.finite|.daemon][.bg].<ext>
 * Family runs up to the first "__"; NN is the order (0 if absent); the
 * hook's name is the file name without its last suffix (the "stem");
 * ".bg." anywhere makes it a background hook, ".daemon." a daemon,
 * ".finite." (or neither) a finite one.  Non-executable files are ignored,
 * as in ArchiveBox.  Hooks of one phase run in (NN, stem) order across all
 * selected plugins.
 *
 * Selection (ArchiveBox's): with a whitelist (--plugins, else the PLUGINS
 * setting, comma-separated), the listed plugins and, transitively, their
 * required_plugins; without one (PLUGINS unset or empty), every plugin.
 * A PLUGINS value that is not a list of plugin names (conf_parse_plugins()
 * in config.h: "wget title", ["wget"], ../x, ",") selects no plugin, with
 * a warning: never every plugin.  Then a plugin whose
 * <NAME>_ENABLED (or an x-alias) resolves false, or that requires a
 * missing or unselected plugin, is dropped.  <NAME> is the plugin name in
 * upper case with every other character than A-Z0-9 made "_".
 */
#ifndef ABX_PLUGIN_H
#define ABX_PLUGIN_H

#include <stddef.h>
#include "base/config.h"

struct plugin;

typedef struct hook {
	char *path;          /* absolute */
	char *file;          /* file name */
	char *stem;          /* hook_name */
	char *family;
	int order;
	int bg, daemon;      /* .bg., .daemon. */
	struct plugin *plugin;
} hook_t;

typedef struct plugin {
	char *name;
	char *key;           /* NAME as used in NAME_TIMEOUT */
	char *dir;           /* absolute */
	schema_t schema;
	char **requires;     /* required_plugins, NULL-terminated */
	char *binaries;      /* raw JSON array required_binaries, or NULL */
	hook_t *hooks;
	size_t nhooks;
	int selected;
} plugin_t;

typedef struct plugins_s {
	plugin_t *v;
	size_t n;
	int kept;            /* plugins_keep's: plugins_free leaves it */
} plugins_t;

/* Parse a hook file name; 0 ok (h's strings malloc'd), -1 not a hook. */
int hook_parse_name(const char *file, hook_t *h);
void hook_free(hook_t *h);

/* The search path as a NULL-terminated malloc'd array (datadir may be NULL). */
char **plugins_path(const char *datadir);
void plugins_discover(plugins_t *ps, char **path);
/*
 * For a process that runs phase after phase (a serving worker): from now
 * on plugins_discover hands out its last discovery again while the path is
 * the same and everything it read stats the same (device, inode, mode,
 * owner, links, size, mtime, ctime; stat'd before it was read): each path
 * directory, each entry there named like a plugin, each plugin's
 * config.json and files named like hooks (a file added, removed, renamed
 * or chmod'ed changes one of them).  A discovery that warned (a bad
 * config.json) is not kept, so its warnings are said at every phase.
 * plugins_free of the kept one only clears its selection, and the next
 * plugins_discover may free it; while it is out (not yet given back to
 * plugins_free), plugins_discover makes a discovery of its own, as before.
 */
void plugins_keep(void);
plugin_t *plugins_find(const plugins_t *ps, const char *name);
void plugins_free(plugins_t *ps);

/* The schemas a plugin's config resolves over: base's, its required
 * plugins' (transitively), its own.  Returns the count (at most max). */
size_t plugin_schemas(const plugins_t *ps, const plugin_t *p, const schema_t **out, size_t max);
/* c with p's schemas resolved into it (a copy; free with conf_free). */
void plugin_conf(const plugins_t *ps, const plugin_t *p, const conf_t *c, conf_t *out);
/* The hook timeout in seconds: <NAME>_TIMEOUT, else TIMEOUT, else 60. */
long plugin_timeout(const plugin_t *p, const conf_t *pc);

/*
 * Mark the selected plugins.  names: an explicit whitelist (--plugins) or
 * NULL for the PLUGINS setting of c.  Returns 0, or -1 if an explicit name
 * is not installed (*missing names it).  A malformed PLUGINS setting is
 * reported on stderr and selects nothing (0 is returned: the phase runs no
 * hook); settings_check() is what refuses it up front.
 */
int plugins_select(plugins_t *ps, const conf_t *c, char **names, const char **missing);

/* The hooks of a family among the selected plugins, in run order; a
 * malloc'd array of pointers into ps. */
size_t plugins_hooks(const plugins_t *ps, const char *family, hook_t ***out);

/*
 * The interpreter a hook's "#!" line names, or NULL if it has none (a
 * binary, run as it is) or the file cannot be read.  "#!/usr/bin/env [-S]
 * [-options] NAME ..." gives NAME (abx-plugins' Python hooks start
 * "#!/usr/bin/env -S uv run --active --script", its JS hooks
 * "#!/usr/bin/env node"), "#!/bin/sh -e" gives "/bin/sh".  Malloc'd.
 */
char *hook_interpreter(const char *path);
/* Is it to be had: an absolute path executable, else a name found in the
 * PATH string?  1 or 0. */
int interpreter_found(const char *interp, const char *path_env);
/* Why a hook cannot run without it, for a note: "uv: not found — Python
 * plugins of abx-plugins need uv".  Malloc'd. */
char *interpreter_missing_note(const char *interp);

#endif
