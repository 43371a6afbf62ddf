/*
 * cli.h — what every abx tool's main shares: its usage, help and version
 * texts, the data directory from -d, else $ABX_DIR, else the default
 * (store_default_dir()), and writing lines to stdout.
 *
 * usage strings are constants in each main and mirror its man page's
 * SYNOPSIS; options is a constant too, one line per option ("  -d DIR
 * the data directory ..."), that mirrors its OPTIONS.
 *
 *   cli_help(usage, options)   -h, --help: the usage, every option, and the
 *                              man page to read (the program's name + "(1)"),
 *                              on stdout; exit 0
 *   cli_version()              --version: "abx-ctl (abx) 0.10"; exit 0
 *   cli_usage(usage)           after getopt said what was wrong: the usage
 *                              and "try --help" on stderr; exit 64
 *   cli_usage_err(usage, fmt)  a usage error found by the main: first
 *                              "abx-ctl: fatal: <what was wrong>", then as
 *                              cli_usage; exit 64
 *
 * A usage error is fatal, and so printed as "fatal:", never "warning:".
 * Any other fatal error a main reports with die() (die.h, included here so
 * that every tool's main has it).
 */
#ifndef ABX_CLI_H
#define ABX_CLI_H

#include "base/buf.h"
#include "die.h"

#define ABX_VERSION "0.10"

/* Every tool's --version: add CLI_VERSION_OPT to its long options and
 * "case CLI_VERSION: cli_version();" to its option switch. */
#define CLI_VERSION 0x100
#define CLI_VERSION_OPT {"version", no_argument, 0, CLI_VERSION}

void cli_usage(const char *usage) __attribute__((noreturn));
void cli_usage_err(const char *usage, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void cli_help(const char *usage, const char *options) __attribute__((noreturn));
void cli_version(void) __attribute__((noreturn));
/* Write a whole line to stdout (adds '\n'); a closed pipe exits quietly. */
void cli_out(const char *s, size_t n);
int cli_isatty_out(void);
/* The data directory a tool uses: dir (-d), else $ABX_DIR, else the
 * default. */
const char *cli_dir(const char *dir);

#endif
