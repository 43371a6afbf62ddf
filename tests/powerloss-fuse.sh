#!/bin/sh
# Power loss at random points on a filesystem whose syncfs reaches nothing
# (issue 29): tests/powerloss.sh's workload and checks, with the model's
# FUSE semantics (ABX_POWERFAIL_FUSE=1: only what was fsync'd or
# fdatasync'd survives, file data and directory entries alike; syncfs and
# sync are no-ops), as on GlusterFS's client or LazyFS.  abx is told the
# filesystem is such a one (ABX_DURABILITY=perfile: the test's own
# filesystem is local), so that it makes each record durable file by file.
# The variables of tests/powerloss.sh apply (ABX_POWERLOSS_POINTS, _SEED,
# _KEEP).  ABX_POWERLOSS_DURABILITY=syncfs runs abx as it would trust
# syncfs there (how abx behaved before issue 29): records are then lost.
ABX_POWERFAIL_FUSE=1
ABX_DURABILITY=${ABX_POWERLOSS_DURABILITY:-perfile}
export ABX_POWERFAIL_FUSE ABX_DURABILITY
exec sh "$(dirname "$0")/powerloss.sh"
