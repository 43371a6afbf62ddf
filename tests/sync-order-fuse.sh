#!/bin/sh
# Acknowledge after durable where syncfs reaches nothing (issue 29):
# tests/sync-order.sh's workload and rules with abx told its filesystem is
# one whose syncfs is not trusted (ABX_DURABILITY=perfile, as on FUSE or
# NFS) and the checker counting a syncfs or sync for nothing
# (POWERFAIL_STRACE_FUSE=1): every file a result names, every name a tool
# created and every file it wrote must be fsync'd or fdatasync'd itself.
ABX_DURABILITY=perfile POWERFAIL_STRACE_FUSE=1
export ABX_DURABILITY POWERFAIL_STRACE_FUSE
exec sh "$(dirname "$0")/sync-order.sh"
