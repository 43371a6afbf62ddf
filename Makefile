# abx — a web-archiving scheduler as a plain-files Unix toolkit.
# make            build every tool into bin/
# make check      install deps, build with ASan/UBSan, run every test (prove)
# make demo       archive the bundled example site
# make bench      print benchmark ratios
# make layers     draw lib/'s layers and who calls whom (abx-internals(7) LAYOUT)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
SHAREDIR ?= $(PREFIX)/share/abx
DESTDIR ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
XCFLAGS  = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Ilib \
           -DABX_SHAREDIR='"$(SHAREDIR)"'
LDFLAGS = -Wl,--as-needed
LDLIBS  = -larchive -linotifytools -lidn2 -lpsl -lz
# A sanitizer build lives apart, in build/asan/: its objects, tools, unit
# tests, and a copy of share/ with its own hooks built from C (on_*.bin).
# make check never leaves an ASan binary in bin/ or share/, and switching
# between make and make check rebuilds neither.
O       =
ifeq ($(SANITIZE),1)
CFLAGS  = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
O       = build/asan/
endif

TOOLS   = abx-add abx-claim abx-ls abx-ctl abx-hook abx-seal abx-tick abx-gate
PROGS   = $(patsubst %.c,$(O)%,$(sort $(wildcard bin/abx-*.c)))
BENCHES = $(patsubst %.c,%,$(sort $(wildcard bench/*.c)))
# Hooks written in C (a plugin's <name>.c): built beside it as the hook, on_*.bin
PLUGDIR = share/abx/plugins
HOOKBINS = $(O)$(PLUGDIR)/wget/on_Snapshot__06_wget.finite.bg.bin \
           $(O)$(PLUGDIR)/chrome/on_Snapshot__29_chrome.bin \
           $(O)$(PLUGDIR)/screenshot/on_Snapshot__30_screenshot.bin \
           $(O)$(PLUGDIR)/pdf/on_Snapshot__31_pdf.bin \
           $(O)$(PLUGDIR)/dom/on_Snapshot__32_dom.bin \
           $(O)$(PLUGDIR)/title/on_Snapshot__54_title.bin \
           $(O)$(PLUGDIR)/headers/on_Snapshot__55_headers.bin \
           $(O)$(PLUGDIR)/favicon/on_Snapshot__56_favicon.bin \
           $(O)$(PLUGDIR)/parse_html_urls/on_Snapshot__75_parse_html_urls.bin \
           $(O)$(PLUGDIR)/hashes/on_Snapshot__90_hashes.bin

LIBSRC  = $(sort $(wildcard lib/*.c lib/*/*.c))
LIBHDR  = $(wildcard lib/*.h lib/*/*.h)
LIBOBJ  = $(patsubst %.c,$(O)%.o,$(LIBSRC))
LIBA    = $(O)lib/libabx.a
UNITSRC = $(sort $(wildcard tests/unit/*.c))
UNITS   = $(patsubst %.c,$(O)%.t,$(UNITSRC))
MANS    = $(sort $(wildcard man/*.[1-9]))

all: $(LIBA) $(PROGS) $(HOOKBINS) $(UNITS) stalehooks

# Hooks renamed (title, favicon, headers: 10-12 to 54-56) or rewritten in C
# (screenshot, pdf, dom): a tree built before keeps the old files, which
# would run as hooks too; removed.
STALEHOOKS = $(wildcard $(O)$(PLUGDIR)/title/on_Snapshot__10_title.bin \
               $(O)$(PLUGDIR)/favicon/on_Snapshot__11_favicon.bin \
               $(O)$(PLUGDIR)/headers/on_Snapshot__12_headers.bin \
               $(O)$(PLUGDIR)/screenshot/on_Snapshot__30_screenshot.sh \
               $(O)$(PLUGDIR)/pdf/on_Snapshot__31_pdf.sh $(O)$(PLUGDIR)/dom/on_Snapshot__32_dom.sh)
stalehooks: | $(if $(O),$(O)share)
	$(if $(STALEHOOKS),rm -f $(STALEHOOKS))
.PHONY: stalehooks

# Rebuild a flavour's objects and programs when its flags change (how the
# static programs are linked too: HOOK_STATIC, below).
$(O)build.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CFLAGS) $(XCFLAGS) $(HOOK_STATIC)' | cmp -s - $@ || \
	  echo '$(CC) $(CFLAGS) $(XCFLAGS) $(HOOK_STATIC)' > $@

$(O)lib/%.o: lib/%.c $(LIBHDR) $(O)build.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) -c -o $@ $<

$(LIBA): $(LIBOBJ)
	rm -f $@ && ar rcs $@ $(LIBOBJ)

# ld's warning that a static getaddrinfo(3) loads NSS modules at run time
# is filtered out: the programs linked so resolve on purpose (below)
NSSWARN = -e "in function .netzone_host.:$$" -e "in function .gate_lookup.:$$" \
          -e "requires at runtime the shared libraries from the glibc"
$(O)bin/%: bin/%.c $(LIBA) $(LIBHDR) $(O)build.flags
	@mkdir -p $(@D)
	trap 'rm -f $@.ld' EXIT INT TERM; \
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBA) $(LDFLAGS) $(or $(LINK_$(*F)),$(LDLIBS)) 2>$@.ld; s=$$?; \
	grep -v $(NSSWARN) $@.ld >&2; exit $$s

# the tools find their plugins at <exe>/../share: a sanitizer build gets a
# copy of share/ (refreshed at each make), its C hooks built into it
ifneq ($(O),)
all: $(O)share
$(O)share: FORCE
	@mkdir -p $@ && (cd share && tar cf - --exclude='*.bin' abx) | (cd $@ && tar xf -)
endif

# hook PLUGIN,STEM,LINK: the rule of a hook built from C, PLUGIN/STEM.bin
# from PLUGIN/PLUGIN.c; LINK is how it is linked (the libraries after it)
# (ld's warning about a static getaddrinfo filtered out: NSSWARN, above)
define hook
$(O)$(PLUGDIR)/$(1)/$(2).bin: $(PLUGDIR)/$(1)/$(1).c $(LIBA) $(LIBHDR) $(O)build.flags | $(if $(O),$(O)share)
	trap 'rm -f $$@.ld' EXIT INT TERM; \
	$$(CC) $$(CFLAGS) $$(XCFLAGS) -o $$@ $$< $$(LIBA) $$(LDFLAGS) $(3) 2>$$@.ld; s=$$$$?; \
	grep -v $$(NSSWARN) $$@.ld >&2; \
	exit $$$$s
endef
# Programs that start once a page on a crawl are linked statically: a
# static parse_html_urls costs 1.9 ms of CPU to start against 5.2 (abx-internals(7),
# "The cost of a page").  abx-hook resolves the crawl's
# seeds (the zones its egress gate lets through), abx-gate every host a
# hook fetches from, the wget hook the page's zone; glibc's static getaddrinfo
# reads "files" and "dns" itself and loads any other NSS module of
# nsswitch.conf from the installed glibc: abx-internals(7) says what that costs.
# title (iconv loads its charsets) stays dynamic.  make HOOK_STATIC=
# links them all dynamically; the sanitizer build does.
HOOK_STATIC = -static-pie
ifeq ($(SANITIZE),1)
HOOK_STATIC =
endif
STATICLINK = $(if $(HOOK_STATIC),$(HOOK_STATIC) -lpsl -lidn2 -lunistring,$(LDLIBS))
LINK_abx-hook = $(STATICLINK)
# the egress gate starts once a phase (abx-hook spawns it): static too
LINK_abx-gate = $(STATICLINK)
$(eval $(call hook,wget,on_Snapshot__06_wget.finite.bg,$$(STATICLINK)))
# screenshot, pdf and dom: _lib/derived.c (chrome's file of this run, else browser.sh)
$(eval $(call hook,screenshot,on_Snapshot__30_screenshot,$$(STATICLINK)))
$(eval $(call hook,pdf,on_Snapshot__31_pdf,$$(STATICLINK)))
$(eval $(call hook,dom,on_Snapshot__32_dom,$$(STATICLINK)))
$(O)$(PLUGDIR)/screenshot/on_Snapshot__30_screenshot.bin $(O)$(PLUGDIR)/pdf/on_Snapshot__31_pdf.bin \
  $(O)$(PLUGDIR)/dom/on_Snapshot__32_dom.bin: $(PLUGDIR)/_lib/derived.c
# title, headers and favicon include _lib/capture.c (the snapshot's capture, read from its WARCs)
$(eval $(call hook,title,on_Snapshot__54_title,$$(LDLIBS)))
$(eval $(call hook,headers,on_Snapshot__55_headers,$$(STATICLINK) -lz))
$(eval $(call hook,favicon,on_Snapshot__56_favicon,$$(STATICLINK) -lz))
$(O)$(PLUGDIR)/title/on_Snapshot__54_title.bin $(O)$(PLUGDIR)/headers/on_Snapshot__55_headers.bin \
  $(O)$(PLUGDIR)/favicon/on_Snapshot__56_favicon.bin: $(PLUGDIR)/_lib/capture.c
# chrome.c includes its siblings (cdp.c, warcwrite.c, capture.c): one
# translation unit, rebuilt when any of them changes; zlib for its WARC
$(eval $(call hook,chrome,on_Snapshot__29_chrome,$$(STATICLINK) -lz))
$(O)$(PLUGDIR)/chrome/on_Snapshot__29_chrome.bin: $(wildcard $(PLUGDIR)/chrome/*.c)
$(eval $(call hook,parse_html_urls,on_Snapshot__75_parse_html_urls,$$(STATICLINK)))
$(eval $(call hook,hashes,on_Snapshot__90_hashes,$$(STATICLINK)))

bench/%: bench/%.c lib/libabx.a $(LIBHDR) build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< lib/libabx.a $(LDFLAGS) $(LDLIBS) -lsqlite3
# bench/crawl.sh puts cputime in front of every wget: static, so that the
# wrapper's own start (counted as the fetcher's) stays small
bench/cputime: bench/cputime.c build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(if $(HOOK_STATIC),$(HOOK_STATIC))
# bench/machine spawns itself: linked as the hooks are, it measures their floor
bench/machine: bench/machine.c bench/benchlib.h lib/libabx.a build.flags
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< lib/libabx.a $(if $(HOOK_STATIC),$(HOOK_STATIC))

$(O)tests/unit/%.t: tests/unit/%.c tests/unit/tap.h $(LIBA) $(O)build.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) -Itests/unit -o $@ $< $(LIBA) $(LDFLAGS) $(LDLIBS)

deps:
	@sh tests/lib/deps.sh

check: deps
	$(MAKE) SANITIZE=1 all
	$(MAKE) lint
	ABX_TEST_BIN=$(CURDIR)/build/asan/bin ABX_TEST_SHARE=$(CURDIR)/build/asan/share \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  prove -j2 --timer build/asan/tests/unit/*.t tests/*.sh
	# and the programs make links statically (abx-hook, most C hooks),
	# which the sanitizer build cannot be
	$(MAKE) all
	prove --timer tests/hooks-c.sh tests/hooks-c-curl.sh tests/hooks-c-hashes.sh \
	  tests/hooks-c-fulldisk.sh tests/plugins.sh tests/store-lean.sh tests/hook-signals.sh \
	  tests/hook-orphans.sh tests/tick-kill.sh tests/tick-crawl.sh tests/zones-requisites.sh \
	  tests/hooks-c-nss.sh tests/hooks-c-tls.sh

SHELLS  = $(wildcard .ci/run tests/*.sh tests/lib/*.sh bench/*.sh examples/*.sh examples/run \
            share/abx/plugins/*/on_*.sh share/abx/plugins/*/browser.sh)

lint:
	@if [ -n "$(MANS)" ]; then echo "mandoc -Tlint $(MANS)"; mandoc -Tlint -Wwarning $(MANS); fi
	shellcheck -x -s sh -e SC1091 $(SHELLS)

# lib/'s folders are layers; tests/layers.sh checks what this draws
layers: $(LIBA)
	python3 tests/lib/layers.py $(O)lib --draw

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
	rm -f $(DESTDIR)$(MANDIR)/man7/abx.7 $(DESTDIR)$(MANDIR)/man7/abx-internals.7
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -f $(PROGS) $(HOOKBINS) $(UNITS) $(BENCHES) lib/*.o lib/*/*.o lib/libabx.a build.flags tests.log
	rm -rf build
	rm -rf bench/out

.PHONY: all deps check lint layers bench demo install uninstall clean FORCE
