/*
 * settings.h — the settings abx itself reads, checked before they are used.
 * Each key's parser lives with the module that owns the key (config.h: the
 * durations, sizes and counts; hostpace.h: HOST_*; scope.h: CRAWL_SCOPE;
 * robots.h: ROBOTS_TXT; packfmt.h: PACK_ON_SEAL; netzone.h:
 * ALLOW_PRIVATE_NETWORKS; ids.h: HOST); this file only says which applies.
 *
 * settings_check() applies them to every entry of c that came from abx.conf,
 * the environment, or a crawl's or snapshot's config (a built-in default
 * or a plugin's schema is not the user's to fix), and to these keys:
 *
 *   DELETE_AFTER                     a duration (0: never)
 *   TIMEOUT, <PLUGIN>_TIMEOUT        seconds, 1 or more
 *   CRAWL_TIMEOUT                    seconds (0: no limit)
 *   CRAWL_MAX_SIZE, SNAPSHOT_MAX_SIZE  a size (0: no limit)
 *   CRAWL_MAX_URLS                   a count (0: no limit)
 *   CRAWL_MAX_CONCURRENT_SNAPSHOTS   a count, 1 or more
 *   PLUGINS                          plugin names
 *   HOST_*, CRAWL_SCOPE, ROBOTS_TXT, PACK_ON_SEAL, ALLOW_PRIVATE_NETWORKS,
 *   FS_UNSAFE_OK, HOST                by their owners' parsers (above)
 *
 * Any key ending in _TIMEOUT counts as a <PLUGIN>_TIMEOUT in abx.conf and
 * in a crawl's config, but not in the environment, where other programs'
 * variables end in _TIMEOUT too: there only TIMEOUT and CRAWL_TIMEOUT are.
 * Each bad value adds to why a message naming where it came from, the key,
 * the value and what is wanted:
 *
 *   abx.conf line 3: DELETE_AFTER=1000000y: want a duration of 1h to ...
 *
 * (messages are joined with "; ").  settings_check() returns 0 if every value
 * is good, EX_CONFIG_ (78) if a bad one came from abx.conf or the
 * environment, else EX_DATAERR_ (65: a crawl's or snapshot's config, the
 * operands of abx-add).  It never exits or prints: a main decides, e.g.
 *
 *     if ((rc = settings_check(&c, &why)) != 0)
 *             die(rc, "%s", buf_cstr(&why));
 *
 * and a tick that finds a stored crawl's config bad reports it and goes on.
 * Two shorthands: settings_check_global() loads and checks what every tool of
 * a data directory runs with (built-in defaults, DIR/abx.conf, the
 * environment: 0 or 78, also if abx.conf cannot be read), and
 * settings_check_json() a crawl's or snapshot's stored "config" object alone
 * (0 or 65; not an object: 0, as conf_load_json() ignores it).
 *
 * Unknown keys (abx(7), CONFIGURATION): a key is known if abx reads it
 * (the keys above, and URL_ALLOWLIST, URL_DENYLIST, USER_AGENT, ...: the
 * table in settings.c), if a plugin's config.json has it (a property or an
 * x-alias), if it begins with ABX_, or with a plugin's name in upper case
 * and "_" (a plugin without a config.json reads its own).
 * settings_key_near() gives the known key a typo most resembles: the same
 * in another case (timeout: TIMEOUT), else the one fewest edits away (a
 * letter added, dropped, changed, or two swapped), at most 2; or NULL.
 * settings_unknown() appends, for each entry of c from layer that is not
 * known, where it came from, the key and the key it resembles,
 *
 *   abx.conf line 3: HOST_DELAYS is no setting of abx or of its plugins
 *   (did you mean HOST_DELAY?)
 *
 * to why, separated by sep, and returns how many; settings_unknown_dir()
 * does so with the plugins found for data directory dir (plugin.h).
 * A typo in abx.conf is a warning: settings_check_global() prints one line
 * for each (warnx_), but not in a tick's worker ($ABX_PARENT_PID), whose
 * tick has said it; one in abx-add's --config is an error (addcmd.h: 78).
 * The environment is everyone's: its keys are never called unknown.
 */
#ifndef ABX_SETTINGS_H
#define ABX_SETTINGS_H

#include "base/buf.h"
#include "base/config.h"
#include "hook/plugin.h"

/* 0, EX_CONFIG_ or EX_DATAERR_, with the reasons appended to why. */
int settings_check(const conf_t *c, buf_t *why);
int settings_check_global(int dfd, buf_t *why);
int settings_check_json(const char *raw, int layer, buf_t *why);


int settings_key_known(const char *key, const plugins_t *ps);
const char *settings_key_near(const char *key, const plugins_t *ps);
int settings_unknown(const conf_t *c, int layer, const plugins_t *ps, buf_t *why, const char *sep);
int settings_unknown_dir(const conf_t *c, int layer, const char *dir, buf_t *why, const char *sep);

#endif
