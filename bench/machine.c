/*
 * machine — what the kernel and CPU under a crawl charge for the things a
 * page's processes do most, printed as one line for bench/crawl.sh:
 *
 *   machine: a system call 1.03 us, a page fault 11.2 us, cpuid 6.5 us, a static program 1.59 ms
 *
 *   a system call   getppid(2), the cheapest, over 200,000 calls;
 *   a page fault    the first write to each page of a fresh anonymous
 *                   mapping of 20,000 pages (of sysconf(_SC_PAGESIZE), no
 *                   huge pages): the fault, its zeroed page and the
 *                   page-table write;
 *   cpuid           the instruction (x86 only; a virtual machine traps it
 *                   to its hypervisor), which glibc runs as every program
 *                   starts (its cache and CPU features);
 *   a static program  the CPU time (user + system, parent and child) of
 *                   posix_spawn(3) of this program, linked statically as
 *                   the hooks are, exiting at once, and its reaping: the
 *                   floor under each process of a page.
 *
 * Each figure is the median of 5 runs (benchlib.h's quantile).  Exit 0, or 1 with a message if a
 * measurement could not be made.  Run with one argument, "--exit", it
 * exits at once (the spawned child).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "benchlib.h"

extern char **environ;
static volatile unsigned sink; /* keeps the cpuid loop */

static double
cpu_us(int who)
{
	struct rusage r;
	getrusage(who, &r);
	return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

static double
syscall_us(void)
{
	enum { N = 200000 };
	double t = bench_mono_us();
	for (int i = 0; i < N; i++)
		syscall(SYS_getppid);
	return (bench_mono_us() - t) / N;
}

static double
fault_us(void)
{
	enum { N = 20000 };
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)N * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	/* a page a fault, also where transparent huge pages are "always" */
	madvise(p, (size_t)N * pg, MADV_NOHUGEPAGE);
	double t = bench_mono_us();
	for (size_t i = 0; i < N; i++)
		p[i * pg] = 1;
	t = (bench_mono_us() - t) / N;
	munmap(p, (size_t)N * pg);
	return t;
}

static double
cpuid_us(void)
{
#if defined(__x86_64__) || defined(__i386__)
	enum { N = 2000 };
	unsigned a, b, c, d;
	double t = bench_mono_us();
	for (int i = 0; i < N; i++) {
		__cpuid_count(0, 0, a, b, c, d);
		sink += a ^ b ^ c ^ d;
	}
	return (bench_mono_us() - t) / N;
#else
	return -1;
#endif
}

/* the CPU of spawning and reaping self --exit, per program, in ms */
static double
spawn_ms(const char *self)
{
	enum { N = 200 };
	char *av[] = {(char *)self, "--exit", NULL};
	double c = cpu_us(RUSAGE_SELF) + cpu_us(RUSAGE_CHILDREN);
	for (int i = 0; i < N; i++) {
		pid_t pid;
		int st;
		if (posix_spawn(&pid, self, NULL, NULL, av, environ) != 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return -1;
	}
	return (cpu_us(RUSAGE_SELF) + cpu_us(RUSAGE_CHILDREN) - c) / N / 1000;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--exit") == 0)
		return 0;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fprintf(stderr, "machine: cannot read /proc/self/exe\n");
		return 1;
	}
	self[n] = 0;
	double s[5], f[5], c[5], p[5];
	for (int i = 0; i < 5; i++) {
		s[i] = syscall_us();
		f[i] = fault_us();
		c[i] = cpuid_us();
		p[i] = spawn_ms(self);
		if (f[i] < 0 || p[i] < 0) {
			fprintf(stderr, "machine: could not %s\n", f[i] < 0 ? "map memory" : "spawn itself");
			return 1;
		}
	}
	double cu = quantile(c, 5, 0.5);
	char cs[32] = "";
	if (cu >= 0)
		snprintf(cs, sizeof cs, ", cpuid %.1f us", cu);
	printf("machine: a system call %.2f us, a page fault %.1f us%s, a static program %.2f ms\n",
	    quantile(s, 5, 0.5), quantile(f, 5, 0.5), cs, quantile(p, 5, 0.5));
	return 0;
}
