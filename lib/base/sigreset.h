/*
 * sigreset.h — what every abx tool does first: undo the signal state it
 * inherited.  A process inherits ignored dispositions and its signal mask
 * across execve (a supervisor, a shell with `trap '' CHLD`, nohup): an
 * ignored SIGCHLD makes the kernel reap our children for us (waitpid then
 * fails and a loop that waits for them spins), a blocked SIGTERM makes a
 * tool unstoppable.  sig_reset() sets every catchable signal that is
 * ignored back to its default and unblocks every signal; the tool then
 * installs the handlers it wants.  SIGHUP ignored by nohup is reset as
 * well: abx-tick and abx-hook treat it as a stop request, as documented.
 */
#ifndef ABX_SIGRESET_H
#define ABX_SIGRESET_H

void sig_reset(void);

#endif
