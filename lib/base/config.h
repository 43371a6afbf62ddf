/*
 * config.h — layered configuration, and a plugin's config.json schema
 * resolved over it (ArchiveBox's resolution, abx-hook(1) CONFIGURATION).
 *
 * A conf_t maps KEY to the text a hook sees in its environment.  Every entry
 * remembers the layer it came from; conf_set() replaces an entry only from
 * the same or a higher layer, so loading the layers in any order gives
 *
 *     built-in defaults < DIR/abx.conf < environment < crawl "config"
 *       < snapshot "config" < resolved plugin schema < forced (SNAP_DIR ...)
 *
 * JSON values (crawl and snapshot config, schema defaults) become text as
 * ArchiveBox serialises them: strings unescaped, true/false as True/False,
 * numbers as written, arrays and objects as one line of JSON as abx-dl
 * writes them (jsonline.h), null dropped.
 *
 * A schema (config.json "properties") resolves each property K, in order:
 *  1. K or one of its x-aliases, set in abx.conf or above (the highest layer
 *     wins; K before its aliases within a layer);
 *  2. its x-fallback F, resolved the same way (so a built-in TIMEOUT=60
 *     beats a default of K, as in ArchiveBox: K = F unless K is set);
 *  3. K's schema "default";
 *  4. K's built-in default.
 * A value is coerced to the property's "type" (boolean: true/false/1/0/yes/
 * no/on/off, any case, becomes True/False; integer; number; array and
 * object: JSON text of that shape; string: as is).  A value that does not
 * coerce is reported once on stderr and the next rule is tried.
 *
 * Keys are [A-Za-z_][A-Za-z0-9_]*; others are ignored (they cannot be
 * environment variables).  Lookups are binary searches: the array is kept
 * sorted by key.  An entry from abx.conf remembers its line, for messages.
 *
 * Values abx itself reads are checked by settings_check() (tick/settings.h)
 * with the strict parsers below and those of the modules that own the
 * other keys; the code that uses a value should parse it with the same one
 * (conf_seconds(), retention and plugin selection do), so that what is
 * checked is what runs.  A parser returns 0 and sets *out, or -1 if the
 * text is malformed or the value out of range, including too large to
 * represent: never a wrapped-around value.  A number is plain digits, with
 * a fraction where said: no sign, exponent, hexadecimal, inf or nan.
 *
 *   conf_parse_seconds   "60", "1.5" (cut to 1): 0 to CONF_SECONDS_MAX
 *                        (TIMEOUT, <PLUGIN>_TIMEOUT, CRAWL_TIMEOUT)
 *   conf_parse_count     a whole number, 0 to LLONG_MAX
 *                        (CRAWL_MAX_URLS, CRAWL_MAX_CONCURRENT_SNAPSHOTS)
 *   conf_parse_size      bytes: "500000", "10k", "1.5M", "2GB", "1GiB", "3t"
 *                        (units are powers of 1024); under 2^63
 *                        (CRAWL_MAX_SIZE, SNAPSHOT_MAX_SIZE)
 *   conf_parse_duration  DELETE_AFTER (retention.h): 0 for never (also
 *                        "", none, false, no, off, "0d"), else <int><unit>
 *                        of one hour to CONF_DURATION_MAX
 *   conf_parse_plugins   PLUGINS: "" for every plugin, else plugin names
 *                        separated by commas (name_list(): blanks around
 *                        a name are trimmed, empty elements skipped), at
 *                        least one; *names gets them (NULL for ""), to
 *                        free with name_list_free()
 */
#ifndef ABX_CONFIG_H
#define ABX_CONFIG_H

#include <stddef.h>
#include "base/buf.h"
#include "base/confbool.h"

enum {
	CONF_BUILTIN, CONF_FILE, CONF_ENV, CONF_CRAWL, CONF_SNAPSHOT, CONF_PLUGIN, CONF_FORCED,
};

typedef struct {
	char *key, *val;
	int layer;
	int line;          /* its abx.conf line, or 0 */
} conf_ent_t;

typedef struct {
	conf_ent_t *v;
	size_t n, cap;
} conf_t;

typedef struct {
	char *key;
	char *type;        /* "boolean" "integer" ... or "" */
	char *dflt;        /* raw JSON, or NULL */
	char *fallback;    /* x-fallback, or NULL */
	char **aliases;    /* NULL-terminated, or NULL */
} prop_t;

typedef struct {
	prop_t *v;
	size_t n;
} schema_t;

int conf_key_valid(const char *k);
void conf_set(conf_t *c, const char *key, const char *val, int layer);
void conf_unset(conf_t *c, const char *key);
const conf_ent_t *conf_find(const conf_t *c, const char *key);
const char *conf_get(const conf_t *c, const char *key);   /* NULL if unset */
void conf_copy(conf_t *dst, const conf_t *src);
void conf_free(conf_t *c);

void conf_builtins(conf_t *c);
/* KEY=value lines, '#' comments, optional "export ", blanks around '=' and
 * at the end of the line dropped, then quotes stripped.
 * 0, or -1 if the file cannot be read (ENOENT is not an error).  A plain
 * name's bytes are kept for the process's next read of it while a stat of
 * it says the same file, unchanged (kept.h): one round trip on a
 * network filesystem instead of an open, reads and a close. */
int conf_load_file(conf_t *c, int dfd, const char *rel);
void conf_load_environ(conf_t *c, char **envp);
/* The members of a raw JSON object; -1 if raw is not an object. */
int conf_load_json(conf_t *c, const char *raw, int layer);

/* JSON value → environment text; returns -1 for null (no value). */
int conf_json_text(const char *raw, buf_t *out);
/* Whole seconds from 1 to CONF_SECONDS_MAX (conf_parse_seconds), or dflt. */
long conf_seconds(const char *v, long dflt);

#define CONF_SECONDS_MAX  (30L * 24 * 3600)                /* 30 days */
#define CONF_DURATION_MAX (100000LL * 365 * 24 * 3600)     /* 100000 years */

int conf_parse_seconds(const char *v, long long *out);
int conf_parse_count(const char *v, long long *out);
int conf_parse_size(const char *v, long long *out);
/* conf_parse_size's value, or 0 for none or malformed (checked where set) */
long long parse_size(const char *s);
int conf_parse_duration(const char *v, long long *out);
int conf_parse_plugins(const char *v, char ***names);

/* Parse the "properties" object of a config.json into sc (appending). */
int schema_parse(schema_t *sc, const char *properties_raw);
const prop_t *schema_find(const schema_t *sc, const char *key);
void schema_free(schema_t *sc);
/* Resolve every property of the schemas over c, into c (layer CONF_PLUGIN);
 * where is named in warnings (the plugin). */
void conf_resolve(conf_t *c, const schema_t *const *schemas, size_t n, const char *where);
/* Resolve one property, without storing it; malloc'd text or NULL. */
char *conf_resolve_one(const conf_t *c, const schema_t *const *schemas, size_t n,
    const char *key, const char *where);

/* The environment: "KEY=value" strings, NULL-terminated, malloc'd. */
char **conf_envp(const conf_t *c);
void conf_envp_free(char **envp);

#endif
