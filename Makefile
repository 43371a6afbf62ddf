# abx — a web-archiving scheduler as a plain-files Unix toolkit.
# make            build every tool into bin/
# make check      install deps, build with ASan/UBSan, run every test (prove)
# make demo       archive the bundled example site
# make bench      print benchmark ratios
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
SHAREDIR ?= $(PREFIX)/share/abx
DESTDIR ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
XCFLAGS  = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Ilib \
           -DABX_SHAREDIR='"$(SHAREDIR)"'
LDLIBS  = -larchive -linotifytools -lidn2 -lpsl -lz
ifeq ($(SANITIZE),1)
CFLAGS  = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

TOOLS   = abx-add abx-claim abx-ls abx-ctl abx-hook abx-seal abx-tick
PROGS   = $(patsubst %.c,%,$(sort $(wildcard bin/abx-*.c)))
BENCHES = $(patsubst %.c,%,$(sort $(wildcard bench/*.c)))
HELPERS = $(patsubst %.c,%,$(wildcard share/abx/plugins/parse_html_urls/parse_html_urls.c))
LIBSRC  = $(sort $(wildcard lib/*.c))
LIBOBJ  = $(LIBSRC:.c=.o)
UNITSRC = $(sort $(wildcard tests/unit/*.c))
UNITS   = $(UNITSRC:.c=.t)
MANS    = $(sort $(wildcard man/*.[1-9]))

all: lib/libabx.a $(PROGS) $(HELPERS) $(UNITS)

# Rebuild everything when the flags change (a sanitizer build and a plain one).
build.flags: FORCE
	@echo '$(CC) $(CFLAGS) $(XCFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS) $(XCFLAGS)' > $@

lib/%.o: lib/%.c lib/*.h build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -c -o $@ $<

lib/libabx.a: $(LIBOBJ)
	rm -f $@ && ar rcs $@ $(LIBOBJ)

bin/%: bin/%.c lib/libabx.a lib/*.h build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< lib/libabx.a $(LDLIBS)

share/abx/plugins/parse_html_urls/parse_html_urls: share/abx/plugins/parse_html_urls/parse_html_urls.c lib/libabx.a build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< lib/libabx.a $(LDLIBS)

bench/%: bench/%.c lib/libabx.a lib/*.h build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< lib/libabx.a $(LDLIBS) -lsqlite3

tests/unit/%.t: tests/unit/%.c tests/unit/tap.h lib/libabx.a build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -Itests/unit -o $@ $< lib/libabx.a $(LDLIBS)

deps:
	@sh tests/lib/deps.sh

check: deps
	$(MAKE) SANITIZE=1 all
	$(MAKE) lint
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  prove -j2 --timer tests/unit/*.t tests/*.sh

SHELLS  = $(wildcard .ci/run tests/*.sh tests/lib/*.sh bench/*.sh examples/*.sh examples/run \
            share/abx/plugins/*/on_*.sh)

lint:
	@if [ -n "$(MANS)" ]; then echo "mandoc -Tlint $(MANS)"; mandoc -Tlint -Wwarning $(MANS); fi
	shellcheck -x -s sh -e SC1091 $(SHELLS)

bench: deps
	$(MAKE) all $(BENCHES)
	sh bench/run.sh

demo: deps
	$(MAKE) all
	sh examples/demo.sh

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(SHAREDIR)
	cp $(PROGS) $(DESTDIR)$(BINDIR)/
	cp man/*.1 $(DESTDIR)$(MANDIR)/man1/
	cp man/*.7 $(DESTDIR)$(MANDIR)/man7/
	cp -R share/abx/plugins $(DESTDIR)$(SHAREDIR)/

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANDIR)/man1/$$t.1; done
	rm -f $(DESTDIR)$(MANDIR)/man7/abx.7
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -f $(PROGS) $(HELPERS) $(UNITS) $(BENCHES) lib/*.o lib/libabx.a build.flags tests.log
	rm -rf bench/out

.PHONY: all deps check lint bench demo install uninstall clean FORCE
