/*
 * binary.h — the binaries a plugin requires: found, recorded, backed off.
 *
 * A plugin's config.json "required_binaries" is an array of
 *     {"name": "{WGET_BINARY}", "binproviders": "env,apt", ...}
 * whose string fields have {KEY} replaced by the plugin's resolved config.
 * A name with a "/" is a path; otherwise it is looked up in PATH, then each
 * provider named in binproviders that a plugin implements with
 * on_BinaryRequest__* hooks is asked in turn (binary_provider_fn).
 *
 * The outcome is a Binary record in binaries.jsonl, one per name (the same
 * id is reused):
 *   found:   status "installed", abspath, version (the first version-like
 *            word of `abspath --version`, given 2 s; of the program a
 *            distribution's launcher script starts, launcher.h),
 *            binprovider;
 *   missing: status "queued", retry_at = now + 60 s * 2^(failures-1),
 *            capped at 24 h, num_uses_failed = failures, notes = why.
 * While a queued record's retry_at is in the future nothing is looked up:
 * the failure is reported from the record ("retried later with backoff,
 * not on every pass"), and the record is not rewritten.  An installed
 * record is trusted while its abspath is still an executable file.
 *
 * Lookups run without the store lock; binary_commit() stages the changed
 * record under it, re-reading the record of that name so that concurrent
 * resolvers share one id.
 */
#ifndef ABX_BINARY_H
#define ABX_BINARY_H

#include "base/config.h"
#include "base/json.h"
#include "store/store.h"

/*
 * A provider hook gets the request as abx-dl 1.10.71 passes it
 * (binary_service.py _run_binary_provider_hook): every field as
 * --key=value, key with '_' as '-', in its order — name, plugin-name,
 * output-dir, min-version, postinstall-scripts, min-release-age,
 * binary-id, binproviders, overrides, then any other field of the entry;
 * a null or absent one is left out; a string as it is, anything else as
 * one line of JSON (jsonline.h).  "overrides" is the entry's own object,
 * keyed by provider ({"pip": {"install_args": ["yt-dlp[default]"]}}),
 * which the apt, pip and npm hooks index by their name.  binreqs_parse()
 * keeps the entry's fields as args (minus name and binproviders, which
 * the caller adds hydrated, with the fields only it knows).
 */
typedef struct {
	char *name;          /* hydrated */
	char *key;           /* KEY if name was exactly "{KEY}", else NULL */
	char *binproviders;  /* comma-separated, "env" if absent */
	char **args;         /* "--min-version=1.2" ..., in abx-dl's order, NULL-ended */
} binreq_t;

size_t binreqs_parse(const char *raw_array, const conf_t *pc, binreq_t **out);
void binreqs_free(binreq_t *v, size_t n);

/* A provider: 0 and *abspath (and *version, may stay NULL) malloc'd if it
 * resolved req; -1 if it was asked and did not; -2 if no plugin provides it. */
typedef int (*binary_provider_fn)(void *arg, const char *provider, const binreq_t *req,
    const char *binary_id, char **abspath, char **version);

typedef struct {
	int ok;
	char *abspath;       /* when ok */
	char *why;           /* when not: "binary wget not found in PATH; next check at ..." */
	int changed;         /* rec must be committed */
	rec_t rec;           /* the new Binary record (when changed) */
} binres_t;

void binary_resolve(store_t *s, const binreq_t *req, const char *path_env,
    binary_provider_fn prov, void *arg, binres_t *res);
/* Stage res->rec (needs the store lock); the id of an existing record of
 * the same name is kept.  Returns the staged record in res->rec. */
void binary_commit(store_t *s, binres_t *res);
void binres_free(binres_t *res);

/* Look name up in a PATH string; malloc'd path or NULL. */
char *binary_which(const char *name, const char *path_env);
/* The version word printed by `abspath --version` within 2 s, or NULL. */
char *binary_version(const char *abspath);

#endif
