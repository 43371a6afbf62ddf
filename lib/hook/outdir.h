/*
 * outdir.h — a hook's output directory, <item dir>/<plugin>/, opened to be
 * the hook's cwd.
 *
 * outdir_open(DFD, DIR, REL): REL under the directory DIR (open as DFD:
 * the data directory, or an item's directory below it) is made if absent
 * (under the process's umask: storeperm.h) and opened without following a
 * symlink on the way (fs.h), the walk that makes it giving the fd.  What
 * is there already must be a directory owned by this user: a symlink
 * planted in its place (by another hook, by another user) would make every
 * hook of the plugin write where it points, and another user's directory
 * is not ours to write in.  Refused, it is said on stderr with the path and the
 * cause ("refusing to run hooks in D/x/wget: it is a symlink to /etc"),
 * and the hook fails with that errno (ELOOP, ENOTDIR, EPERM).  Returns the
 * directory's fd, or -1 (errno set).
 *
 * The hooks keep to it (abx(7) SECURITY): what they write there they open
 * with O_NOFOLLOW or rename into place, and the wget hook removes any
 * symlink in its directory before wget, which follows them, runs.
 */
#ifndef ABX_OUTDIR_H
#define ABX_OUTDIR_H

int outdir_open(int dfd, const char *dir, const char *rel);

#endif
