/*
 * pluginsarg.h — a --plugins P,... operand (abx-add, abx-ctl retry,
 * abx-hook), checked where it is given, before anything is stored or run:
 *
 *   plugins_arg()   split the list into names (name_list(), ids.h), each a
 *                   name that can be a plugin's.  Returns 0 and *names (a
 *                   NULL-terminated array: name_list_free() it), or
 *                   EX_DATAERR_ with *names NULL and one of these in why:
 *
 *                       --plugins: not a plugin name: NAME
 *                       --plugins wants one or more plugin names, separated by commas
 *
 * Whether each name is a plugin found on the search path is names.h's
 * question (names_plugins()), asked by the caller once it knows the data
 * directory.  Nothing here prints or exits.
 */
#ifndef ABX_PLUGINSARG_H
#define ABX_PLUGINSARG_H

#include "base/buf.h"

int plugins_arg(const char *arg, char ***names, buf_t *why);

#endif
