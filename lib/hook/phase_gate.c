/*
 * phase_gate.c — a phase's egress gate (gate.h): every hook reaches the
 * network through it, and what it refused is told in the hook's result.
 *
 *  1. phase_gate_start, before the first hook starts: the zones the crawl
 *     may enter (zonepolicy.h: public, the zones of the crawl's seeds, and
 *     what ALLOW_PRIVATE_NETWORKS allows), and its HOST_MAX_CONCURRENT
 *     (hostpace_conf), the connections a host the gate lets be open at
 *     once, counted in the data directory's locks/ with every other gate
 *     on it (gate.h "Pacing"; the gate is told --pace N --data DIR, and
 *     checks them).  A gate is started even for a crawl that may enter
 *     every zone: it paces.  It has one listener a hook, on 127.0.0.1
 *     (past GATE_MAX_LISTENERS hooks, the rest share the last one, and its
 *     refusals are told to the first of them).  A gate that cannot start
 *     fails the phase before any hook runs (exit 75): no hook fetches
 *     unchecked or unpaced.
 *  2. phase_gate_env, as a hook is spawned: its environment points every
 *     proxy variable at its own listener, http_proxy, https_proxy,
 *     HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and all_proxy =
 *     "http://127.0.0.1:PORT/", with no_proxy and NO_PROXY removed (the
 *     user's own, from the environment or abx.conf, would let a host
 *     bypass it), and ABX_GATE=127.0.0.1:PORT (the shell hooks give it to
 *     chromium as --proxy-server).  Without a gate, ABX_GATE is removed.
 *  3. phase_gate_note, as a hook's result is made: the refusals logged
 *     since the last call are handed to the hooks whose listeners they
 *     came in on; this hook's are added to its notes ("the egress gate
 *     refused N connections: URL (ZONE), ..."; the first 3 named), and if
 *     one of them was the page's own fetch (gate.h "The page"), its zone
 *     is returned: the result records it as "network_zone", and the seal
 *     says sealed_reason "network_zone" (seal.c).  The connections pacing
 *     gave up on (503) are a note of their own ("the egress gate gave up
 *     N connections ... HOST_MAX_CONCURRENT=M ..."), never a zone.
 *  4. phase_gate_stop, after the last hook (and before the orphans are
 *     reaped, which would kill it): the gate is stopped and reaped.  A
 *     CrawlSetup daemon left running loses its gate with the phase: its
 *     fetches are then refused (connection refused), never unchecked.
 *
 * A serving worker (phase_gate_keep, hookserve.h) keeps one gate process
 * for all its snapshots instead (gate.h "Kept"): step 1 tells it the
 * phase's rules with fresh listeners (gate_start_kept), step 4 ends the
 * phase's part of it (its listeners closed, its connections dropped) and
 * leaves the process up.  Its environment holds ABX_KEPT=$ABX_WORKER, so
 * that the orphans' reaping (phase.h, step 9) leaves it and the worker's
 * end (phase_end_kept) stops it; it also dies with the worker.  What each
 * phase's hooks see and what their results say is the same either way.
 * Such a worker also keeps its last crawl's seeds reduced to one valid URL
 * a host (seed_hosts): step 1 of a snapshot of the same crawl parses those,
 * not every seed again; the hosts are looked up each phase, as before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "hook/phase_int.h"
#include "net/hostpace.h"
#include "net/netzone.h"

#define NOTE_NAMED 3

extern char **environ;
static int keeping;

void
phase_gate_keep(void)
{
	keeping = 1;
}

/* The kept gate's environment: ours, and ABX_KEPT=$ABX_WORKER. */
static char **
kept_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 2, sizeof *env), *kept = NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "ABX_KEPT=", 9) != 0)
			env[k++] = environ[i];
	const char *w = getenv("ABX_WORKER");
	if (w && *w) {
		kept = xmalloc(strlen(w) + 10);
		sprintf(kept, "ABX_KEPT=%s", w);
		env[k++] = kept;
	}
	env[k] = NULL;
	return env;
}

static void
kept_env_free(char **env)
{
	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], "ABX_KEPT=", 9) == 0)
			free(env[i]);
	free(env);
}

/* The key of a valid URL's host (zonepolicy.c host_of): its text up to
 * the end of the authority, with the character that ends it; the whole
 * URL if it has no "://".  Two URLs with one key have one host. */
static size_t
host_key_len(const char *url)
{
	const char *a = strstr(url, "://");
	if (!a)
		return strlen(url);
	size_t end = (size_t)(a + 3 - url) + strcspn(a + 3, "/?#\\");
	return url[end] ? end + 1 : end;
}

/* The seeds a zone policy needs: of the valid URLs of seeds (lines or
 * JSONL, read by zonepolicy_seed_url as the policy reads them), the first
 * one of each host key (file: URLs are all one); invalid ones add no zone
 * and are left out.
 * The zones allowed from it are those allowed from seeds, with the same
 * hosts looked up.  Malloc'd. */
static char *
seed_hosts(const char *seeds)
{
	char *text = xstrdup(seeds), *save = NULL;
	buf_t out = {0}, keys = {0};
	int file = 0;
	buf_addc(&keys, '\n');
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *url = zonepolicy_seed_url(l);
		if (!url || strchr(url, '\n') || strchr(" \t{#", url[0])) {
			free(url);
			continue;
		}
		int is_file = strncasecmp(url, "file:", 5) == 0, seen = is_file && file;
		if (!is_file) {
			char *key = xasprintf("\n%.*s\n", (int)host_key_len(url), url);
			seen = memmem(keys.p, keys.len, key, strlen(key)) != NULL;
			if (!seen)
				buf_adds(&keys, key + 1);
			free(key);
		}
		file |= is_file;
		if (!seen)
			buf_addf(&out, "%s\n", url);
		free(url);
	}
	free(text);
	buf_free(&keys);
	return buf_cstr(&out);
}

/* A serving worker's last crawl seeds (their JSON text, as the record
 * holds them) and what seed_hosts made of them: its snapshots are mostly
 * of one crawl, whose seeds are not read again (a crawl of N seeds made
 * each snapshot parse N URLs). */
static char *kept_raw, *kept_hosts;

/* The seeds the phase's zone policy is made from (malloc'd, or NULL). */
static char *
policy_seeds(phase_t *ph)
{
	const char *raw = ph->have_crawl ? rec_raw(&ph->crawl, "urls") : NULL;
	if (keeping && raw && kept_raw && strcmp(raw, kept_raw) == 0)
		return xstrdup(kept_hosts);
	char *seeds = ph->have_crawl ? rec_str(&ph->crawl, "urls") : NULL;
	if (!seeds)
		return ph->url ? xstrdup(ph->url) : NULL;
	if (!keeping)
		return seeds;
	free(kept_raw), free(kept_hosts);
	kept_raw = xstrdup(raw);
	kept_hosts = seed_hosts(seeds);
	free(seeds);
	return xstrdup(kept_hosts);
}

int
phase_gate_start(phase_t *ph)
{
	char *seeds = policy_seeds(ph);
	zonepolicy_t *zp = zonepolicy_new(seeds, conf_get(&ph->conf, "ALLOW_PRIVATE_NETWORKS"));
	unsigned allow = zonepolicy_allowed(zp);
	zonepolicy_free(zp);
	free(seeds);
	ph->gate_notes = xcalloc(ph->nhooks + 1, sizeof(buf_t));
	ph->gate_count = xcalloc(ph->nhooks + 1, sizeof(int));
	ph->gate_zone = xcalloc(ph->nhooks + 1, sizeof(char *));
	ph->gate_paced = xcalloc(ph->nhooks + 1, sizeof(buf_t));
	ph->gate_npaced = xcalloc(ph->nhooks + 1, sizeof(int));
	hostpace_t hp;
	hostpace_conf(&ph->conf, &hp);
	gate_pace_t pace = {hp.max_concurrent, ph->data_abs, 0};
	int n = ph->nhooks < GATE_MAX_LISTENERS ? (int)ph->nhooks : GATE_MAX_LISTENERS;
	const char *why = "";
	int rc;
	if (keeping) {
		char **env = kept_env();
		rc = gate_start_kept(&ph->gate, n, allow, ph->snapshot ? ph->url : NULL, &pace, env, &why);
		kept_env_free(env);
	} else {
		rc = gate_start(&ph->gate, n, allow, ph->snapshot ? ph->url : NULL, &pace, &why);
	}
	if (rc < 0) {
		const char *e = strerror(errno);
		if (*why)
			errorx("%s %s: the egress gate could not start, so no hook runs: data directory %s: %s: %s",
			    ph->o->family, ph->o->id, ph->data_abs, why, e);
		else
			errorx("%s %s: the egress gate could not start, so no hook runs: %s", ph->o->family, ph->o->id, e);
		return -1;
	}
	return 0;
}

void
phase_gate_env(phase_t *ph, size_t i, conf_t *pc)
{
	static const char *const vars[] = {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
	                                   "ALL_PROXY", "all_proxy"};
	conf_unset(pc, "no_proxy");
	conf_unset(pc, "NO_PROXY");
	if (!ph->gate.pid) {
		conf_unset(pc, "ABX_GATE");
		for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
			conf_unset(pc, vars[k]);
		return;
	}
	char hp[64], url[80];
	/* past GATE_MAX_LISTENERS hooks, the last listener is shared */
	size_t l = i < (size_t)ph->gate.n ? i : (size_t)ph->gate.n - 1;
	snprintf(hp, sizeof hp, "127.0.0.1:%d", ph->gate.port[l]);
	snprintf(url, sizeof url, "http://%s/", hp);
	conf_set(pc, "ABX_GATE", hp, CONF_FORCED);
	for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
		conf_set(pc, vars[k], url, CONF_FORCED);
}

static void
take(void *arg, const gate_refusal_t *g)
{
	phase_t *ph = arg;
	if (g->listener < 0 || (size_t)g->listener >= ph->nhooks)
		return;
	size_t i = (size_t)g->listener;
	if (g->paced) {
		if (++ph->gate_npaced[i] <= NOTE_NAMED)
			buf_addf(&ph->gate_paced[i], "%s%s", ph->gate_npaced[i] > 1 ? ", " : "", g->url);
		return;
	}
	if (++ph->gate_count[i] <= NOTE_NAMED)
		buf_addf(&ph->gate_notes[i], "%s%s (%s, %s)", ph->gate_count[i] > 1 ? ", " : "", g->url,
		    g->address, g->zone);
	if (g->page && !ph->gate_zone[i])
		ph->gate_zone[i] = xstrdup(g->zone);
}

/* The note of the connections pacing gave up on for hook i. */
static void
paced_note(phase_t *ph, size_t i, buf_t *notes)
{
	int n = ph->gate_npaced[i];
	hostpace_t hp;
	hostpace_conf(&ph->conf, &hp);
	if (notes->len)
		buf_adds(notes, "; ");
	buf_addf(notes, "the egress gate gave up %d connection%s after waiting %d s for their host, which had "
	    "HOST_MAX_CONCURRENT=%d connections open from abx's fetchers all that time: %s%s", n, n == 1 ? "" : "s",
	    GATE_PACE_WAIT, hp.max_concurrent, buf_cstr(&ph->gate_paced[i]), n > NOTE_NAMED ? ", ..." : "");
}

const char *
phase_gate_note(phase_t *ph, run_t *r, buf_t *notes)
{
	if (!ph->gate.pid || !ph->gate_count)
		return NULL;
	if (gate_refusals(&ph->gate, take, ph) < 0)
		warnx_("%s %s: the egress gate's log cannot be read: %s", ph->o->family, ph->o->id, strerror(errno));
	size_t i = (size_t)(r - ph->runs);
	int n = ph->gate_count[i];
	if (n) {
		if (notes->len)
			buf_adds(notes, "; ");
		buf_addf(notes, "the egress gate refused %d connection%s into a network zone the crawl may not "
		    "enter: %s%s", n, n == 1 ? "" : "s", buf_cstr(&ph->gate_notes[i]), n > NOTE_NAMED ? ", ..." : "");
	}
	if (ph->gate_npaced[i])
		paced_note(ph, i, notes);
	buf_cstr(notes);
	return n ? ph->gate_zone[i] : NULL;
}

void
phase_gate_stop(phase_t *ph)
{
	gate_stop(&ph->gate);
}

void
phase_gate_free(phase_t *ph)
{
	gate_stop(&ph->gate);
	for (size_t i = 0; ph->gate_notes && i < ph->nhooks; i++) {
		buf_free(&ph->gate_notes[i]);
		buf_free(&ph->gate_paced[i]);
		free(ph->gate_zone[i]);
	}
	free(ph->gate_notes), free(ph->gate_count), free(ph->gate_zone);
	free(ph->gate_paced), free(ph->gate_npaced);
	ph->gate_notes = NULL, ph->gate_count = NULL, ph->gate_zone = NULL;
	ph->gate_paced = NULL, ph->gate_npaced = NULL;
}
