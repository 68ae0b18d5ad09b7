# SPDX-License-Identifier: Apache-2.0
# tdtrace: GNU Make build. `make`, `make check`, `make check-tsan`, `make bench`,
# `make install PREFIX=DIR [DESTDIR=...]`, `make report-png` (docs/report.png).
#
# Sources are picked up by directory, so a new file needs no Makefile edit:
#   src/common/   shared by every binary (API table, xlat, print layer, ...)
#   src/emu/      the emulated GPU: lib/tdtrace/emu/libcuda.so.1
#   src/shim/     the interposer:   lib/tdtrace/libcuda.so.1
#   src/audit/    the loader-audit library: lib/tdtrace/libtdaudit.so
#   src/tdtrace/, src/policy/, src/ioctl/   the supervisor: bin/tdtrace
#   src/patch/    code and GOT patching (libtdpatch.a, for the supervisor
#                 and the shim)
#   src/hostlib/LIB/ + common/  host implementations of NVIDIA's libraries:
#                            lib/tdtrace/host/ (see docs/hostlib.md)
#   src/pyframes/ the calling thread's Python frames, linked into the shim
#   src/jitwrap/  NVRTC and nvJitLink in front of NVIDIA's: lib/tdtrace/jit/
#   tests/unit/test_NAME.c   one cmocka suite per module
#                            (test_emu_*.c link the emulator statically)

CC      ?= cc
BUILD   ?= build
SAN     ?=
# the PTX engines the kernel and conformance suites run on: both, and the
# interpreter alone under the sanitizers (the JIT's helpers are the
# interpreter's own handlers)
ENGINES ?= $(if $(SAN),interp,interp jit)
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

GEN := $(BUILD)/gen
WARN := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
        -Wswitch-enum -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation
OPT  ?= -O2 -g
ifeq ($(SAN),asan)
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
ifeq ($(SAN),tsan)
  OPT := -O1 -g -fsanitize=thread
endif
CPPFLAGS += -D_GNU_SOURCE -DTD_VERSION='"$(VERSION)"' -Iinclude -Iinclude/tdtrace -Isrc/common -Isrc/policy -Isrc/ioctl -Isrc/pyframes -I$(GEN)
CFLAGS   += -std=c11 $(WARN) $(OPT) -fPIC -fvisibility=hidden -pthread
LDFLAGS  += $(OPT) -pthread

all: tdtrace emu shim audit hostlib jit examples tests
.PHONY: all tdtrace emu shim audit hostlib jit examples tests check check-layers check-spdx check-tsan test unit e2e bench install clean gen demo fuzz-smoke report-png

# ---- generated code ---------------------------------------------------
XLAT_IN := $(sort $(wildcard src/xlat/*.in)) $(sort $(wildcard src/xlat/lib/*.in))
GEN_OUT := $(GEN)/cuda_enums.h $(GEN)/td_api.h $(GEN)/td_xlat.h $(GEN)/td_xlat.c \
           $(GEN)/td_api_table.c $(GEN)/td_api_roles.c $(GEN)/td_structs.h $(GEN)/td_structs.c \
           $(GEN)/td_structs_check.c $(GEN)/shim_wrappers.c $(GEN)/shim_rt_wrappers.c $(GEN)/emu_stubs.c $(GEN)/td_errnos.def
$(BUILD)/apigen: tools/apigen.c src/api/apiparse.c src/api/apiparse.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -o $@ tools/apigen.c src/api/apiparse.c
$(GEN)/.stamp: $(BUILD)/apigen src/api/cuda.api src/api/exptab.api src/api/cudart.api src/api/libs.api src/api/types.def src/api/structs.api $(XLAT_IN) \
               tools/gen-errnos.sh
	@mkdir -p $(GEN)
	@echo "  GEN     $(GEN)"; $(BUILD)/apigen $(GEN) src/api/cuda.api src/api/exptab.api src/api/cudart.api src/api/libs.api src/api/types.def src/api/structs.api $(XLAT_IN)
	@tools/gen-errnos.sh $(CC) $(CPPFLAGS) > $(GEN)/td_errnos.def.tmp && mv $(GEN)/td_errnos.def.tmp $(GEN)/td_errnos.def
	@touch $@
$(GEN_OUT): $(GEN)/.stamp
gen: $(GEN)/.stamp
# a file kept as it is (tdtrace report's page) built into a binary as a C array
$(BUILD)/embed: tools/embed.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 -g $(WARN) -o $@ $<
$(GEN)/report_html.c: src/report/report.html $(BUILD)/embed
	@mkdir -p $(@D)
	$(BUILD)/embed td_report_html < $< > $@.tmp && mv $@.tmp $@

# ---- objects ----------------------------------------------------------
$(BUILD)/obj/%.o: %.c $(GEN)/.stamp
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<
$(BUILD)/obj/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(OPT) -fPIC -c -o $@ $<
$(BUILD)/obj/gen/%.o: $(GEN)/%.c $(GEN)/.stamp
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Isrc/emu -Isrc/shim -MMD -MP -c -o $@ $<
objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

COMMON_OBJ := $(call objs,$(wildcard src/common/*.c)) $(BUILD)/obj/gen/td_api_table.o $(BUILD)/obj/gen/td_api_roles.o \
              $(BUILD)/obj/gen/td_xlat.o $(BUILD)/obj/gen/td_structs.o
EMU_OBJ    := $(call objs,$(wildcard src/emu/*.c src/ptx/*.c)) $(BUILD)/obj/gen/emu_stubs.o
PYF_OBJ    := $(call objs,$(wildcard src/pyframes/*.c))
SHIM_OBJ   := $(call objs,$(wildcard src/shim/*.c src/policy/*.c)) $(PYF_OBJ) $(patsubst %.S,$(BUILD)/obj/%.o,$(wildcard src/shim/*.S)) \
              $(BUILD)/obj/gen/shim_wrappers.o $(BUILD)/obj/gen/shim_rt_wrappers.o
AUDIT_OBJ  := $(call objs,$(wildcard src/audit/*.c))
CORE_DIRS  ?= src/tdtrace src/policy src/ioctl
CORE_OBJ   := $(call objs,$(filter-out src/tdtrace/main.c,$(wildcard $(addsuffix /*.c,$(CORE_DIRS)))))
MAIN_OBJ   := $(call objs,src/tdtrace/main.c)
# tdtrace report's page (src/report/report.html), built in as a C array
CORE_OBJ   += $(BUILD)/obj/gen/report_html.o
PATCH_OBJ  := $(call objs,$(wildcard src/patch/*.c))

$(BUILD)/libtdcommon.a: $(COMMON_OBJ)
	@rm -f $@; ar rcs $@ $^
$(BUILD)/libtdcore.a: $(CORE_OBJ)
	@rm -f $@; ar rcs $@ $^
$(BUILD)/libemu.a: $(EMU_OBJ)
	@rm -f $@; ar rcs $@ $^
$(BUILD)/libtdpatch.a: $(PATCH_OBJ)
	@rm -f $@; ar rcs $@ $^

EMU_LIBS  := -lzstd -llz4 -lm -ldl
# -lZydis where something calls it (tdtrace -p; the shim, for --runtime)
PATCH_LIBS := -lelf -Wl,--as-needed -lZydis -Wl,--no-as-needed
CORE_LIBS := -lseccomp -ldw -lm $(PATCH_LIBS)
LIBDIR := $(BUILD)/lib/tdtrace
EMU_SO   := $(LIBDIR)/emu/libcuda.so.1
SHIM_SO  := $(LIBDIR)/libcuda.so.1
AUDIT_SO := $(LIBDIR)/libtdaudit.so
TDTRACE  := $(BUILD)/bin/tdtrace

$(EMU_SO): $(EMU_OBJ) $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic -Wl,-z,defs $(LDFLAGS) -o $@ $(EMU_OBJ) $(BUILD)/libtdcommon.a $(EMU_LIBS)
	ln -sf libcuda.so.1 $(@D)/libcuda.so
# libtdpatch.a: nothing is taken from it until the shim calls it; that
# call brings $(PATCH_LIBS) with it
$(SHIM_SO): $(SHIM_OBJ) $(BUILD)/libtdcommon.a $(BUILD)/libtdpatch.a
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic -Wl,-z,defs $(LDFLAGS) -o $@ $(SHIM_OBJ) $(BUILD)/libtdcommon.a $(BUILD)/libtdpatch.a $(PATCH_LIBS) -ldl
	ln -sf libcuda.so.1 $(@D)/libcuda.so
# the emulated driver's older releases (--emulate=driver=): for each release
# in $(GEN)/drv/list (from the API table), the shim and the emulator linked
# again with a version script that hides the entry points it lacked
DRVDIR := $(LIBDIR)/driver
$(DRVDIR)/.stamp: $(EMU_OBJ) $(SHIM_OBJ) $(BUILD)/libtdcommon.a $(BUILD)/libtdpatch.a $(GEN)/.stamp
	@rm -rf $(DRVDIR); mkdir -p $(DRVDIR) $(BUILD)/obj/gen/drv
	@echo "  LD      $(DRVDIR)/*/libcuda.so.1 $(DRVDIR)/*/emu/libcuda.so.1"; set -e; \
	for v in $$(cat $(GEN)/drv/list); do d=$(DRVDIR)/$$v; mkdir -p $$d/emu; \
	  $(CC) $(CPPFLAGS) $(CFLAGS) -c -o $(BUILD)/obj/gen/drv/$$v.o $(GEN)/drv/$$v.c; \
	  $(CC) -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic -Wl,-z,defs -Wl,-S -Wl,--version-script=$(GEN)/drv/$$v.map \
	    $(LDFLAGS) -o $$d/emu/libcuda.so.1 $(EMU_OBJ) $(BUILD)/obj/gen/drv/$$v.o $(BUILD)/libtdcommon.a $(EMU_LIBS); \
	  $(CC) -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic -Wl,-z,defs -Wl,-S -Wl,--version-script=$(GEN)/drv/$$v.map \
	    $(LDFLAGS) -o $$d/libcuda.so.1 $(SHIM_OBJ) $(BUILD)/libtdcommon.a $(BUILD)/libtdpatch.a $(PATCH_LIBS) -ldl; \
	  ln -sf ../../libtdaudit.so $$d/libtdaudit.so; \
	done
	@touch $@
# the loader loads audit libraries before anything else, the sanitizers'
# runtime included: this one stays uninstrumented
NOSAN = $(filter-out -fsanitize%,$(1))
# ... and on x86-64 it needs no libc (see src/audit/audit.c): nothing the
# compiler could turn into a libc call
ifeq ($(shell uname -m),x86_64)
AUDIT_FREE := -ffreestanding -fno-builtin -fno-stack-protector -fno-tree-loop-distribute-patterns
AUDIT_NOLIBC := -nostdlib
endif
$(AUDIT_OBJ): CFLAGS := $(call NOSAN,$(CFLAGS)) $(AUDIT_FREE)
$(AUDIT_SO): LDFLAGS := $(call NOSAN,$(LDFLAGS))
$(AUDIT_SO): $(AUDIT_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs $(AUDIT_NOLIBC) $(LDFLAGS) -o $@ $(AUDIT_OBJ)
# tdtrace --runtime preloads it into every traced process (src/rtload): it
# loads the shim early where there is a CUDA runtime. Built without the
# sanitizers (a preloaded library must not need their runtime first) from
# its own sources plus the ELF reader of src/patch.
RTLOAD_SO := $(LIBDIR)/libtdruntime.so
RTLOAD_SRC := $(wildcard src/rtload/*.c) src/patch/elfsym.c src/patch/perr.c src/common/libmatch.c
$(RTLOAD_SO): $(RTLOAD_SRC) $(wildcard src/rtload/*.h) src/patch/elfsym.h src/patch/patch.h src/common/libmatch.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(call NOSAN,$(CFLAGS)) -shared -Wl,-z,defs $(call NOSAN,$(LDFLAGS)) -o $@ $(RTLOAD_SRC) -lelf -ldl
$(TDTRACE): $(MAIN_OBJ) $(BUILD)/libtdcore.a $(BUILD)/libtdpatch.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(BUILD)/libtdcore.a $(BUILD)/libtdpatch.a $(BUILD)/libtdcommon.a $(CORE_LIBS)

emu: $(EMU_SO) $(DRVDIR)/.stamp
shim: $(SHIM_SO) $(if $(wildcard src/rtload/*.c),$(RTLOAD_SO))
audit: $(if $(AUDIT_OBJ),$(AUDIT_SO))
tdtrace: $(if $(wildcard src/tdtrace/main.c),$(TDTRACE))

# ---- NVIDIA's libraries tdtrace puts its own in front of ---------------
# src/common/frontlibs.def names them: FRONTLIB(NAME, "soname", DIR).
# Each gets a directory of its own, front/NAME/, holding a link to its
# library, so that tdtrace can put any of them on the library path alone
# (src/tdtrace/frontlibs.c).
FRONT_DEF := src/common/frontlibs.def
FRONT_OPEN := FRONTLIB(
front_field = $(shell sed -n 's/^$(FRONT_OPEN)$(1), *"\([^"]*\)", *\([a-z]*\).*/\$(2)/p' $(FRONT_DEF))
FRONT_ALL := $(shell sed -n 's/^$(FRONT_OPEN)\([a-z0-9]*\),.*/\1/p' $(FRONT_DEF))
$(foreach l,$(FRONT_ALL),$(eval SONAME_$(l) := $(call front_field,$(l),1))$(eval FDIR_$(l) := $(call front_field,$(l),2)))
FRONTDIR := $(LIBDIR)/front

# ---- host implementations of NVIDIA's libraries (src/hostlib) ------------
# One shared library per NVIDIA library, with its soname and every symbol of
# its version node (LIB.syms; what src/hostlib/LIB does not implement gets a
# generated weak stub), linked against the emulated driver and a host back
# end found with pkg-config. A library whose back end is missing is not
# built (make says so) and its tests skip with the reason.
HOSTDIR := $(LIBDIR)/host
HL_COMMON_OBJ := $(call objs,$(wildcard src/hostlib/common/*.c))
# name, soname, back end, the status of what is not implemented. The back
# end: - for none, pkg-config modules joined by +, or lib:NAME:HEADER for a
# library without a .pc file (Debian's oneDNN): found by compiling HEADER,
# linked with -lNAME.
# A third word, unversioned: the library's symbols have no version node (NVML).
# (The sonames come from src/common/frontlibs.def.)
HL_LIBS := cublas cublaslt cudnn cufft curand nvml
HL_LIBS += cusolver
HL_LIBS += cusparse
HL_cublas := openblas 15
HL_cublaslt := openblas 15
HL_cudnn := lib:dnnl:dnnl.h 3000
HL_cufft := fftw3f+fftw3 16
HL_curand := - 204
HL_nvml := - 3 unversioned
HL_cusolver := openblas 9
HL_cusparse := - 10
# objects of src/common a library links besides (cuFFT's LTO callbacks find
# NVIDIA's NVRTC and nvJitLink as src/jitwrap does), and its extra libraries
HL_cufft_EXTRA := $(call objs,src/common/libsearch.c)
HL_cufft_LIBS := -ldl
hl_soname = $(SONAME_$(1))
hl_pkg    = $(word 1,$(HL_$(1)))
hl_ns     = $(word 2,$(HL_$(1)))
hl_node   = $(if $(filter unversioned,$(word 3,$(HL_$(1)))),,$(call hl_soname,$(1)))
hl_none   = $(filter -,$(call hl_pkg,$(1)))
hl_lib    = $(filter lib:%,$(call hl_pkg,$(1)))
hl_libpart = $(word $(2),$(subst :, ,$(call hl_pkg,$(1))))
hl_mods   = $(subst +, ,$(call hl_pkg,$(1)))
hl_have   = $(if $(call hl_none,$(1)),y,$(if $(call hl_lib,$(1)),$(shell printf '\043include <%s>\n' $(call hl_libpart,$(1),3) | $(CC) -E -x c - >/dev/null 2>&1 && echo y),$(shell pkg-config --exists $(call hl_mods,$(1)) 2>/dev/null && echo y)))
hl_pkgflags = $(if $(call hl_none,$(1)),,$(if $(call hl_lib,$(1)),$(if $(filter --libs,$(2)),-l$(call hl_libpart,$(1),2)),$(shell pkg-config $(2) $(call hl_mods,$(1)) 2>/dev/null)))
HL_BUILT  := $(foreach l,$(HL_LIBS),$(if $(call hl_have,$(l)),$(l)))
HL_MISSING := $(filter-out $(HL_BUILT),$(HL_LIBS))
HL_SO     := $(foreach l,$(HL_BUILT),$(HOSTDIR)/$(call hl_soname,$(l)))
$(HL_COMMON_OBJ): CPPFLAGS += -Isrc/hostlib/common
define hl_rules
HL_$(1)_OBJ := $$(call objs,$$(wildcard src/hostlib/$(1)/*.c))
$$(HL_$(1)_OBJ): CPPFLAGS += -Isrc/hostlib/common -Isrc/hostlib/$(1) $(call hl_pkgflags,$(1),--cflags)
$(GEN)/hostlib/$(1)_stubs.c: src/hostlib/$(1)/$(1).syms src/hostlib/stubs.awk
	@mkdir -p $$(@D)
	awk -v mode=c -v ns=$(call hl_ns,$(1)) -v legacy=hl_$(1)_legacy -f src/hostlib/stubs.awk $$< > $$@.tmp && mv $$@.tmp $$@
$(GEN)/hostlib/$(1).map: src/hostlib/$(1)/$(1).syms src/hostlib/stubs.awk
	@mkdir -p $$(@D)
	awk -v mode=map -v node=$(call hl_node,$(1)) -f src/hostlib/stubs.awk $$< > $$@.tmp && mv $$@.tmp $$@
$(HOSTDIR)/$(call hl_soname,$(1)): $$(HL_$(1)_OBJ) $(HL_$(1)_EXTRA) $(BUILD)/obj/gen/hostlib/$(1)_stubs.o $(HL_COMMON_OBJ) $(GEN)/hostlib/$(1).map $(EMU_SO)
	@mkdir -p $$(@D)
	$$(CC) -shared -Wl,-soname,$(call hl_soname,$(1)) -Wl,--version-script=$(GEN)/hostlib/$(1).map -Wl,-z,defs $$(LDFLAGS) \
	    -o $$@ $$(HL_$(1)_OBJ) $(HL_$(1)_EXTRA) $(BUILD)/obj/gen/hostlib/$(1)_stubs.o $(HL_COMMON_OBJ) \
	    $(call hl_pkgflags,$(1),--libs) -L$(LIBDIR)/emu -l:libcuda.so.1 -lm $(HL_$(1)_LIBS)
	ln -sf $(call hl_soname,$(1)) $$(@D)/$$(basename $(call hl_soname,$(1)))
endef
$(foreach l,$(HL_LIBS),$(eval $(call hl_rules,$(l))))
# cuRAND's Sobol' direction numbers: S. Joe and F. Y. Kuo's published set,
# from SciPy's copy (Debian's python3-scipy; SOBOL_NPZ= names another);
# without it the quasirandom generators are left out (tools/gen-sobol.py)
SOBOL_NPZ ?= $(firstword $(wildcard /usr/lib/python3/dist-packages/scipy/stats/_sobol_direction_numbers.npz))
$(GEN)/hostlib/sobol_joekuo.h: tools/gen-sobol.py $(SOBOL_NPZ)
	@mkdir -p $(@D)
	python3 tools/gen-sobol.py '$(SOBOL_NPZ)' 20000 > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/src/hostlib/curand/sobol.o: $(GEN)/hostlib/sobol_joekuo.h
# cuRAND's MTGP32 parameter sets: NVIDIA's published header, where the
# toolkit is (CUDA_HOME); without it MTGP32 is left out (src/hostlib/curand/mtgp.c)
CUDA_HOME ?= /usr/local/cuda
MTGP_H := $(wildcard $(CUDA_HOME)/include/curand_mtgp32dc_p_11213.h)
$(BUILD)/obj/src/hostlib/curand/mtgp.o: CPPFLAGS += $(if $(MTGP_H),-DTD_HAVE_MTGP32 -isystem $(CUDA_HOME)/include)
hostlib: $(HL_SO)
	$(if $(HL_MISSING),@for l in $(HL_MISSING); do echo "hostlib: not building $$l: its host back end is missing (see docs/hostlib.md)"; done)

# ---- NVRTC and nvJitLink in front of NVIDIA's (src/jitwrap) -------------
# NVIDIA's sonames, symbols and version nodes; each forwards to NVIDIA's
# library, found at run time (the build does not need the toolkit)
JITDIR   := $(LIBDIR)/jit
JIT_OBJ  := $(call objs,src/jitwrap/jit.c src/jitwrap/fatwrite.c)
JIT_SO   := $(JITDIR)/$(SONAME_nvrtc) $(JITDIR)/$(SONAME_nvjitlink)
$(BUILD)/libtdjit.a: $(JIT_OBJ)
	@rm -f $@; ar rcs $@ $^
$(JITDIR)/libnvrtc.so.13: $(call objs,src/jitwrap/nvrtc.c)
$(JITDIR)/libnvJitLink.so.13: $(call objs,src/jitwrap/nvjitlink.c)
$(JITDIR)/%.so.13: src/jitwrap/%.map $(BUILD)/libtdjit.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(@F) -Wl,--version-script=$< -Wl,-z,defs $(LDFLAGS) -o $@ \
	    $(filter %.o,$^) $(BUILD)/libtdjit.a $(BUILD)/libtdcommon.a -ldl
jit: $(JIT_SO)

# front/NAME/SONAME -> ../../DIR/SONAME, for each library that was built
FRONT_BUILT := $(filter-out $(HL_MISSING),$(FRONT_ALL))
FRONT_LINKS := $(foreach l,$(FRONT_BUILT),$(FRONTDIR)/$(l)/$(SONAME_$(l)))
define front_rule
$(FRONTDIR)/$(1)/$(SONAME_$(1)): | $(LIBDIR)/$(FDIR_$(1))/$(SONAME_$(1))
	@mkdir -p $$(@D)
	ln -sfn ../../$(FDIR_$(1))/$(SONAME_$(1)) $$@
endef
$(foreach l,$(FRONT_BUILT),$(eval $(call front_rule,$(l))))
hostlib jit: $(FRONT_LINKS)

# ---- examples and the demo --------------------------------------------
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
$(BUILD)/examples/%: examples/%.c $(EMU_SO)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< -L$(LIBDIR)/emu -l:libcuda.so.1 $(LDFLAGS)
examples: $(EXAMPLES)
# the main job: tdtrace on a bundled CUDA program, on the emulated GPU
demo: all
	$(TDTRACE) -C -- $(BUILD)/examples/hello_drv

# ---- tests ------------------------------------------------------------
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
$(BUILD)/tests/test_emu_%: tests/unit/test_emu_%.c $(BUILD)/libemu.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/emu $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libemu.a $(BUILD)/libtdcommon.a $(EMU_LIBS) $(LDFLAGS) -lcmocka
$(BUILD)/tests/test_jit_%: tests/unit/test_jit_%.c $(BUILD)/libtdjit.a $(BUILD)/libemu.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/emu -Isrc/jitwrap $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libtdjit.a $(BUILD)/libemu.a $(BUILD)/libtdcommon.a $(EMU_LIBS) $(LDFLAGS) -lcmocka
$(BUILD)/tests/test_hostlib: tests/unit/test_hostlib.c $(call objs,src/hostlib/common/convert.c src/hostlib/common/extent.c src/hostlib/common/handles.c)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/hostlib/common $(CFLAGS) -Wno-missing-prototypes -o $@ $^ $(LDFLAGS) -lm -lcmocka
$(BUILD)/tests/test_curand_mt19937: tests/unit/test_curand_mt19937.c $(call objs,src/hostlib/curand/mt19937.c)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/hostlib/curand $(CFLAGS) -Wno-missing-prototypes -o $@ $^ $(LDFLAGS) -lcmocka
$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/libtdcore.a $(BUILD)/libtdpatch.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -Isrc/api -Isrc/tdtrace -Isrc/shim $(CFLAGS) -Wno-missing-prototypes -o $@ $< src/api/apiparse.c $(BUILD)/libtdcore.a $(BUILD)/libtdpatch.a $(BUILD)/libtdcommon.a $(CORE_LIBS) $(LDFLAGS) -lcmocka
# src/pyframes: its suite, and what tests/pyframes/run.sh runs in Python
$(BUILD)/tests/test_pyframes: tests/unit/test_pyframes.c $(PYF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(PYF_OBJ) $(LDFLAGS) -lcmocka -ldl
$(BUILD)/pyframes/libpyft.so: tests/pyframes/libpyft.c tests/pyframes/allocs.h $(PYF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -shared -o $@ $< $(PYF_OBJ) $(LDFLAGS) -ldl
$(BUILD)/pyframes/libmalcount.so: tests/pyframes/malcount.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(call NOSAN,$(CFLAGS)) -shared -o $@ $< $(call NOSAN,$(LDFLAGS))
$(BUILD)/pyframes/embed: tests/pyframes/embed.c tests/pyframes/allocs.h $(PYF_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(PYF_OBJ) $(LDFLAGS) -ldl
PYF_TESTS := $(addprefix $(BUILD)/pyframes/,libpyft.so libmalcount.so embed)
tests: $(UNIT_BIN) e2e-build $(PYF_TESTS)

# programs that attack the supervisor (tests/hostile): they write into
# their own record ring, so they link the ring code
HOSTILE_BIN := $(patsubst tests/hostile/%.c,$(BUILD)/hostile/%,$(wildcard tests/hostile/*.c))
$(BUILD)/hostile/%: tests/hostile/%.c $(BUILD)/libtdcommon.a $(EMU_SO)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -fno-omit-frame-pointer -o $@ $< $(BUILD)/libtdcommon.a -L$(LIBDIR)/emu -l:libcuda.so.1 $(LDFLAGS)

E2E_SRC := $(sort $(filter-out tests/e2e/lib%,$(wildcard tests/e2e/*.c)))
E2E_BIN := $(patsubst tests/e2e/%.c,$(BUILD)/e2e/%,$(E2E_SRC))
$(BUILD)/e2e/%: tests/e2e/%.c tests/e2e/tests.h $(EMU_SO)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -fno-omit-frame-pointer -o $@ $< -L$(LIBDIR)/emu -l:libcuda.so.1 $(LDFLAGS)
E2E_LIBS := $(patsubst tests/e2e/lib%.c,$(BUILD)/e2e/lib%.so,$(wildcard tests/e2e/lib*.c))
$(BUILD)/e2e/lib%.so: tests/e2e/lib%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -o $@ $< $(LDFLAGS)
e2e-build: $(filter-out $(BUILD)/e2e/lib%,$(E2E_BIN)) $(E2E_LIBS) $(HOSTILE_BIN)

# the fuzz targets' standalone drivers, run briefly from a fixed seed
# (long runs: tests/fuzz/README)
$(BUILD)/fuzz/fuzz_policy: tests/fuzz/fuzz_policy.c tests/fuzz/standalone.h $(BUILD)/libtdcore.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -DTD_FUZZ_STANDALONE $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libtdcore.a $(BUILD)/libtdcommon.a $(CORE_LIBS) $(LDFLAGS)
$(BUILD)/fuzz/fuzz_ptx: tests/fuzz/fuzz_ptx.c tests/fuzz/standalone.h $(BUILD)/libemu.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc/emu -DTD_FUZZ_STANDALONE $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libemu.a $(BUILD)/libtdcommon.a $(EMU_LIBS) $(LDFLAGS)
$(BUILD)/fuzz/fuzz_elf: tests/fuzz/fuzz_elf.c tests/fuzz/standalone.h $(BUILD)/libtdpatch.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -DTD_FUZZ_STANDALONE $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libtdpatch.a $(PATCH_LIBS) $(LDFLAGS)
$(BUILD)/fuzz/fuzz_record: tests/fuzz/fuzz_record.c $(BUILD)/libtdcore.a $(BUILD)/libtdcommon.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -Isrc/tdtrace -DTD_FUZZ_STANDALONE $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libtdcore.a $(BUILD)/libtdcommon.a $(CORE_LIBS) $(LDFLAGS)
$(BUILD)/fuzz/fuzz_tlcheck: tests/fuzz/fuzz_tlcheck.c tests/fuzz/standalone.h $(call objs,src/tdtrace/tlcheck.c)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc -DTD_FUZZ_STANDALONE $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(call objs,src/tdtrace/tlcheck.c) $(LDFLAGS)
fuzz-smoke: $(BUILD)/fuzz/fuzz_policy $(BUILD)/fuzz/fuzz_ptx $(BUILD)/fuzz/fuzz_elf $(BUILD)/fuzz/fuzz_record $(BUILD)/fuzz/fuzz_tlcheck
	@$(BUILD)/fuzz/fuzz_policy -n 20000 -s 1
	@$(BUILD)/fuzz/fuzz_record -n 20000 -s 1
	@$(BUILD)/fuzz/fuzz_ptx -n 2000 -s 1
	@$(BUILD)/fuzz/fuzz_elf -n 5000 -s 1
	@$(BUILD)/fuzz/fuzz_tlcheck -n 50000 -s 1

unit: $(UNIT_BIN)
	@tests/run-unit.sh $(UNIT_BIN)
e2e: all
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" tests/e2e/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" tests/hostile/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" tests/attach/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/emu/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/cudart/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/runtime/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/libtrace/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" ENGINES="$(ENGINES)" sh tests/kernels/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" ENGINES="$(ENGINES)" sh tests/conformance/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/nvlibs/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/graph/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/hostlib/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/jitwrap/run.sh
	+@BUILD=$(BUILD) SAN=$(SAN) EXTRA_CFLAGS="$(OPT)" sh tests/ioctl/run.sh
	@BUILD=$(BUILD) EXTRA_CFLAGS="$(OPT)" sh tests/pyframes/run.sh
	@BUILD=$(BUILD) sh tests/report/run.sh
test: unit fuzz-smoke e2e
# the suites' JIT runs keep their compiled kernels in the build folder, not
# in the user's cache (docs/ptx-jit.md)
unit fuzz-smoke e2e: export TDTRACE_EMU_CACHE = $(abspath $(BUILD))/jit-cache
# docs/report.png: tdtrace report's page, drawn by headless Chromium
report-png: all
	@BUILD=$(BUILD) sh tools/report-png.sh docs/report.png

# no file calls back into its callers (tools/check-layers.py): the objects
# of each binary together, generated ones included, so a circle through
# another module counts too (the emulator's include the PTX engine's).
LAYERS_EMU := $(EMU_OBJ)
check-layers: emu shim tdtrace audit hostlib jit
	@printf 'shim: '; python3 tools/check-layers.py $(SHIM_OBJ) $(COMMON_OBJ)
	@printf 'tdtrace: '; python3 tools/check-layers.py $(MAIN_OBJ) $(CORE_OBJ) $(PATCH_OBJ) $(COMMON_OBJ)
	@printf 'emulator: '; python3 tools/check-layers.py $(LAYERS_EMU) $(COMMON_OBJ)
	@$(if $(AUDIT_OBJ),printf 'audit: '; python3 tools/check-layers.py $(AUDIT_OBJ))
	@$(foreach l,nvrtc nvjitlink,printf 'jit/$(l): '; \
	    python3 tools/check-layers.py $(call objs,src/jitwrap/$(l).c) $(JIT_OBJ) $(COMMON_OBJ) &&) true
	@$(foreach l,$(HL_BUILT),printf 'hostlib/$(l): '; \
	    python3 tools/check-layers.py $(HL_COMMON_OBJ) $(HL_$(l)_OBJ) $(HL_$(l)_EXTRA) $(BUILD)/obj/gen/hostlib/$(l)_stubs.o &&) true

# every source file names its licence (generated tables and test data aside)
check-spdx:
	@missing=$$(git ls-files '*.c' '*.h' '*.cu' '*.def' '*.S' '*.map' '*.sh' '*.py' '*.awk' '*.api' Makefile .ci/run 2>/dev/null | \
	    while read -r f; do head -3 "$$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$$f"; done); \
	if [ -n "$$missing" ]; then echo "no SPDX line:"; echo "$$missing"; exit 1; else echo "spdx: every source file has its line"; fi

check:
	$(MAKE) check-layers
	$(MAKE) check-spdx
	$(MAKE) test
	$(MAKE) test SAN=asan BUILD=build-asan
check-tsan:
	$(MAKE) test SAN=tsan BUILD=build-tsan

bench: all
	@BUILD=$(BUILD) bench/run.sh

# ---- install ----------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/tdtrace/emu $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(TDTRACE) $(DESTDIR)$(PREFIX)/bin/tdtrace
	install -m 755 $(SHIM_SO) $(DESTDIR)$(PREFIX)/lib/tdtrace/libcuda.so.1
	install -m 755 $(EMU_SO) $(DESTDIR)$(PREFIX)/lib/tdtrace/emu/libcuda.so.1
	for v in $$(cat $(GEN)/drv/list); do d=$(DESTDIR)$(PREFIX)/lib/tdtrace/driver/$$v; install -d $$d/emu; \
	  install -m 755 $(DRVDIR)/$$v/libcuda.so.1 $$d/; install -m 755 $(DRVDIR)/$$v/emu/libcuda.so.1 $$d/emu/; \
	  ln -sf ../../libtdaudit.so $$d/libtdaudit.so; done
	ln -sf libcuda.so.1 $(DESTDIR)$(PREFIX)/lib/tdtrace/emu/libcuda.so
	$(if $(AUDIT_OBJ),install -m 755 $(AUDIT_SO) $(DESTDIR)$(PREFIX)/lib/tdtrace/libtdaudit.so)
	$(if $(wildcard src/rtload/*.c),install -m 755 $(RTLOAD_SO) $(DESTDIR)$(PREFIX)/lib/tdtrace/libtdruntime.so)
	$(if $(HL_SO),install -d $(DESTDIR)$(PREFIX)/lib/tdtrace/host)
	$(foreach l,$(HL_BUILT),install -m 755 $(HOSTDIR)/$(call hl_soname,$(l)) $(DESTDIR)$(PREFIX)/lib/tdtrace/host/ && \
	    ln -sf $(call hl_soname,$(l)) $(DESTDIR)$(PREFIX)/lib/tdtrace/host/$(basename $(call hl_soname,$(l))) &&) true
	install -d $(DESTDIR)$(PREFIX)/lib/tdtrace/jit
	install -m 755 $(JIT_SO) $(DESTDIR)$(PREFIX)/lib/tdtrace/jit/
	$(foreach l,$(FRONT_BUILT),install -d $(DESTDIR)$(PREFIX)/lib/tdtrace/front/$(l) && \
	    ln -sfn ../../$(FDIR_$(l))/$(SONAME_$(l)) $(DESTDIR)$(PREFIX)/lib/tdtrace/front/$(l)/$(SONAME_$(l)) &&) true
	install -m 644 man/tdtrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/tdtrace.1
	install -m 644 man/tdtrace.policy.5 $(DESTDIR)$(PREFIX)/share/man/man5/tdtrace.policy.5
	install -d $(DESTDIR)$(PREFIX)/share/tdtrace/policies
	install -m 644 share/tdtrace-trace.schema.json $(DESTDIR)$(PREFIX)/share/tdtrace/
	install -m 644 policies/*.policy $(DESTDIR)$(PREFIX)/share/tdtrace/policies/

clean:
	rm -rf build build-asan build-tsan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
