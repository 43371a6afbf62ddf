/*
 * presync.c — see store.h, "the fsyncs a commit owes can be paid before
 * the lock".  Where syncfs is not trusted (s->perfile: FUSE, network
 * filesystems), a commit fsyncs, before its line, every file and directory
 * its records name.  On GlusterFS each of those is a round trip to the
 * brick, and under the store lock they serialise every process of every
 * host.  The process that wrote the files, and knows that nothing changes
 * them any more, pays them before it takes the lock instead, and says so
 * here; the commit then skips exactly the paths said.
 *
 * What is said holds for one transaction: store_tx_forget drops it at
 * store_unlock and at a failed store_lock, as it does store_trees_durable.
 * A presync that fails says nothing: the commit syncs the same paths under
 * the lock and reports the failure there, as before.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/alloc.h"
#include "base/ids.h"
#include "store/durable.h"
#include "store/store_int.h"

void
store_tx_forget(store_t *s)
{
	s->trees_durable[0] = 0;
	s->npresynced = 0;
}

int
store_is_presynced(const store_t *s, const char *rel)
{
	for (size_t i = 0; i < s->npresynced; i++)
		if (strcmp(s->presynced[i], rel) == 0)
			return 1;
	return 0;
}

void
store_presynced(store_t *s, const char *rel)
{
	if (!s->perfile || strlen(rel) >= sizeof *s->presynced || store_is_presynced(s, rel))
		return;
	s->presynced = xrealloc(s->presynced, (s->npresynced + 1) * sizeof *s->presynced);
	snprintf(s->presynced[s->npresynced++], sizeof *s->presynced, "%s", rel);
}

void
store_presynced_drop(store_t *s)
{
	s->npresynced = 0;
}

int
store_presync_result(store_t *s, const char *crawl_id, const char *snap_id, const char *plugin, int treefd,
    int snapfd)
{
	if (!s->durable || !s->perfile)
		return 0;
	if (!id_valid(crawl_id) || !id_valid(snap_id) || !plugin || !*plugin || *plugin == '.' ||
	    strchr(plugin, '/') || strlen(plugin) > 64) {
		errno = EINVAL;
		return -1;
	}
	char tree[256], crawl[64];
	snprintf(tree, sizeof tree, "crawls/%s/%s/%s", crawl_id, snap_id, plugin);
	snprintf(crawl, sizeof crawl, "crawls/%s", crawl_id);
	/* the names a result's commit gives (storecommit.c name_files_of):
	 * its plugin's tree with the snapshot's directory that holds it, and
	 * the crawl's directory that holds the snapshot's entry */
	if (treefd >= 0 && snapfd >= 0) {
		if (durable_tree_fd(treefd) < 0 || fsync(snapfd) < 0)
			return -1;
	} else if (durable_tree(s->dfd, tree) < 0) {
		return -1;
	}
	if (fs_fsync_dir(s->dfd, crawl) < 0)
		return -1;
	store_presynced(s, tree);
	char crawl_dir[sizeof crawl + 1];
	snprintf(crawl_dir, sizeof crawl_dir, "%s/", crawl);
	store_presynced(s, crawl_dir);
	return 0;
}
