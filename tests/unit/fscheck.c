/* The verdicts of fscheck.h on GlusterFS and NFS mounts, and host names
 * (ids.h): what is refused, and what the message tells the user to do. */
#include <stdlib.h>
#include "base/buf.h"
#include "store/fscheck.h"
#include "base/ids.h"
#include "base/host.h"
#include "tap.h"

static const char *coherent_vol =
	"volume abx-client-0\n    type protocol/client\n    option strict-locks on\nend-volume\n"
	"volume abx-dht\n    type cluster/distribute\nend-volume\n"
	"volume abx-io-threads\n    type performance/io-threads\nend-volume\n"
	"volume abx\n    type debug/io-stats\nend-volume\n";
static const char *default_vol =
	"volume abx-write-behind\n    type performance/write-behind\nend-volume\n"
	"volume abx-open-behind\n    type performance/open-behind\nend-volume\n"
	"volume abx-quick-read\n    type performance/quick-read\nend-volume\n"
	"volume abx-md-cache\n    type performance/md-cache\nend-volume\n"
	"volume abx-io-threads\n    type performance/io-threads\nend-volume\n";
static const char *coherent_cmd = "{ \"Cmdlinestr\": \"/usr/sbin/glusterfs --direct-io-mode=enable "
	"--attribute-timeout=0 --entry-timeout=0 --process-name fuse --volfile-server=h "
	"--volfile-id=/abx /mnt\" }";
static const char *default_cmd = "{ \"Cmdlinestr\": \"/usr/sbin/glusterfs --process-name fuse "
	"--volfile-server=h --volfile-id=/abx /mnt\" }";

static int
verdict_g(const char *vol, const char *cmd, const char *want)
{
	buf_t why = {0};
	int r = fscheck_gluster(vol, cmd, "abx", &why);
	int has = !want || strstr(buf_cstr(&why), want) != NULL;
	if (!has)
		printf("# why: %s\n", buf_cstr(&why));
	buf_free(&why);
	return has ? r : -1;
}

static int
verdict_n(const char *opts, const char *want)
{
	buf_t why = {0};
	int r = fscheck_nfs(opts, &why);
	int has = !want || strstr(buf_cstr(&why), want) != NULL;
	if (!has)
		printf("# why: %s\n", buf_cstr(&why));
	buf_free(&why);
	return has ? r : -1;
}

int
main(void)
{
	plan(17);
	ok(verdict_g(coherent_vol, coherent_cmd, NULL) == 0, "gluster: caches off, coherent mount: safe");
	ok(verdict_g(default_vol, coherent_cmd, "gluster volume set abx performance.write-behind off") == 1,
	    "gluster: default volume options: unsafe, the command to fix it is named");
	ok(verdict_g(default_vol, coherent_cmd, ", stat-prefetch)") == 1,
	    "gluster: md-cache is named by its volume option (stat-prefetch)");
	ok(verdict_g(coherent_vol, default_cmd,
	    "-o direct-io-mode=enable,attribute-timeout=0,entry-timeout=0") == 1,
	    "gluster: a default mount: unsafe, the mount options are named");
	ok(verdict_g(coherent_vol, "--direct-io-mode=enable --attribute-timeout=1 --entry-timeout=0", NULL) == 1,
	    "gluster: attribute-timeout=1: unsafe");
	ok(verdict_g(coherent_vol, "--direct-io-mode=disable --attribute-timeout=0 --entry-timeout=0", NULL) == 1,
	    "gluster: direct-io-mode=disable: unsafe");
	ok(verdict_g(coherent_vol, "--direct-io-mode=enable --attribute-timeout=0 --entry-timeout=0 "
	    "--negative-timeout=5", NULL) == 1, "gluster: negative-timeout=5: unsafe");

	ok(verdict_g("volume abx-client-0\n    type protocol/client\n    option strict-locks off\nend-volume\n",
	    coherent_cmd, "gluster volume set abx client.strict-locks on") == 1,
	    "gluster: strict-locks off: unsafe, named");
	ok(verdict_n("rw,vers=4.2,rsize=1048576,hard,noac,proto=tcp,local_lock=none", NULL) == 0,
	    "nfs: v4.2 noac: safe");
	ok(verdict_n("rw,vers=4.2,acregmin=0,acregmax=0,acdirmin=0,acdirmax=0,local_lock=none", NULL) == 0,
	    "nfs: actimeo=0: safe");
	ok(verdict_n("rw,vers=4.2,hard,proto=tcp,local_lock=none", "noac") == 1,
	    "nfs: attribute cache on: unsafe, noac named");
	ok(verdict_n("rw,vers=3,nolock,noac", "local_lock=none") == 1, "nfs: nolock: unsafe");
	ok(verdict_n("rw,vers=4.1,noac,local_lock=flock", "flock is local") == 1, "nfs: local_lock=flock: unsafe");
	ok(verdict_n("rw,vers=4.1,noac,nocto", "nocto") == 1, "nfs: nocto: unsafe");

	ok(host_valid("host-a.example_1") && !host_valid("") && !host_valid("a/b") &&
	    !host_valid("..") && !host_valid("-x"), "host names: letters, digits, _ . -");
	char h[256] = "", why[256] = "";
	setenv("ABX_HOST", "node-7", 1);
	ok(host_name(-1, h, sizeof h, why, sizeof why) == 0 && strcmp(h, "node-7") == 0,
	    "ABX_HOST names the host");
	setenv("ABX_HOST", "no/slash", 1);
	ok(host_name(-1, h, sizeof h, why, sizeof why) == -1 && strstr(why, "ABX_HOST=no/slash"),
	    "a bad ABX_HOST is refused, named");
	return done();
}
