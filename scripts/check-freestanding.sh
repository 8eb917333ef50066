#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-freestanding.sh OBJ [--allow SYM]... - fail if a compiled C++ object
# needs something the kernel does not give it. Catches what objtool and
# modpost do not (Documentation/cxx-in-kernel.rst):
#   sections   .init_array .fini_array .ctors .dtors (constructors never
#              run), .tbss .tdata (TLS), .eh_frame .gcc_except_table
#   relocs     GOTPCREL* (PIC: "Unknown rela relocation"), TPOFF* (TLS)
#              anywhere; R_X86_64_32 in code (not -mcmodel=kernel)
#   insns      any %xmm/%ymm/%zmm register (FPU state the kernel does not
#              save) or %fs: (userspace TLS / stack canary)
#   symbols    undefined symbols other than mem{cpy,set,move,cmp}, the
#              ftrace/retpoline/rethunk/stack-protector ones and --allow SYM
#
#   --kasan    the object was built with the kernel's KASAN flags: allow the
#              __asan_* runtime, and the one constructor/destructor pair GCC
#              emits to (un)register global redzones (.init_array/.fini_array
#              entries that point at functions calling nothing but
#              __asan_register_globals / __asan_unregister_globals; the module
#              loader runs them under CONFIG_CONSTRUCTORS)
#   --ubsan    built with the kernel's UBSAN flags: allow __ubsan_handle_*
# Exit 0 when clean, 1 with one line per finding, 2 on bad usage.
set -u

usage() {
	echo "usage: $0 OBJ [--allow SYM]... [--kasan] [--ubsan]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
obj=$1
shift
allow=(memcpy memset memmove memcmp __fentry__ __x86_return_thunk
	__stack_chk_fail __stack_chk_guard __ref_stack_chk_guard)
kasan=0
ubsan=0
while [ $# -gt 0 ]; do
	case $1 in
	--kasan)
		kasan=1
		shift
		;;
	--ubsan)
		ubsan=1
		shift
		;;
	--allow)
		[ $# -ge 2 ] || usage
		allow+=("$2")
		shift 2
		;;
	*) usage ;;
	esac
done
[ -r "$obj" ] || { echo "$0: cannot read $obj" >&2; exit 2; }
for tool in readelf objdump nm; do
	command -v $tool >/dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done
readelf -h "$obj" >/dev/null 2>&1 || { echo "$0: $obj: not an ELF object" >&2; exit 2; }

fail=0
finding() {
	echo "$obj: $*" >&2
	fail=1
}

# Section headers, one "name flags" pair per line.
# Section headers, one "name flags" line each (Flg is the 7th column
# after the index, and is absent for sections without flags).
sections=$(readelf -S -W "$obj" | sed -n 's/^ *\[ *[0-9]*\] //p' |
	awk 'NF >= 9 { print $1, (NF >= 10 ? $7 : "-") }')

# With --kasan, the global-redzone constructor pair is the one allowed use
# of .init_array/.fini_array: each entry points at .text.startup or
# .text.exit, and those sections reference only .data (the descriptor
# table), the (un)register function and the return thunk.
asan_ctor_ok() {
	local relocs bad
	relocs=$(readelf -r -W "$obj" | awk '
		/^Relocation section/ { sec = $3; gsub(/\047/, "", sec); next }
		NF >= 5 && $1 ~ /^[0-9a-f]+$/ { print sec, $5 }')
	bad=$(awk '
		$1 == ".rela.init_array" && $2 != ".text.startup" { print }
		$1 == ".rela.fini_array" && $2 != ".text.exit" { print }
		$1 == ".rela.text.startup" && $2 != ".data" &&
			$2 != "__asan_register_globals" &&
			$2 != "__x86_return_thunk" { print }
		$1 == ".rela.text.exit" && $2 != ".data" &&
			$2 != "__asan_unregister_globals" &&
			$2 != "__x86_return_thunk" { print }' <<<"$relocs")
	[ -z "$bad" ] || { echo "$bad" | sed 's/^/  /' >&2; return 1; }
}
asan_ctor_checked=0

while read -r name flags; do
	case $name in
	.init_array | .fini_array | .rela.init_array | .rela.fini_array)
		if [ $kasan = 1 ]; then
			if [ $asan_ctor_checked = 0 ]; then
				asan_ctor_checked=1
				asan_ctor_ok ||
					finding "constructors that are not KASAN's global registration (above)"
			fi
			continue
		fi
		finding "forbidden section $name"
		;;
	.init_array* | .fini_array* | .ctors* | .dtors* | .tbss* | .tdata* | \
	.eh_frame* | .gcc_except_table* | .rela.eh_frame* | .rela.init_array* | \
	.rela.fini_array* | .rela.ctors* | .rela.dtors* | .rela.tdata*)
		finding "forbidden section $name"
		;;
	esac
done <<<"$sections"

# Executable sections: where R_X86_64_32 means a non-kernel code model.
code=$(awk '$2 ~ /X/ { print $1 }' <<<"$sections")
is_code() {
	grep -qxF -- "$1" <<<"$code"
}

target=""
while read -r line; do
	case $line in
	"Relocation section '"*)
		target=${line#Relocation section \'}
		target=${target%%\'*}
		target=${target#.rela}
		target=${target#.rel}
		continue
		;;
	esac
	set -- $line
	[ $# -ge 3 ] || continue
	type=$3
	case $type in
	R_X86_64_GOTPCREL* | R_X86_64_REX_GOTPCREL* | *TPOFF* | R_X86_64_TLS*)
		finding "forbidden relocation $type in $target (${5:-?})"
		;;
	R_X86_64_32)
		is_code "$target" &&
			finding "relocation R_X86_64_32 in code section $target (${5:-?}): not -mcmodel=kernel"
		;;
	esac
done < <(readelf -r -W "$obj")

bad_insns=$(objdump -d --no-show-raw-insn "$obj" |
	grep -E '%[xyz]mm[0-9]|%fs:' | head -20)
[ -z "$bad_insns" ] || finding "FPU/SIMD or %fs use:
$bad_insns"

while read -r sym; do
	[ -n "$sym" ] || continue
	ok=0
	case $sym in
	__x86_indirect_thunk_* | __x86_indirect_call_thunk_*) ok=1 ;;
	__asan_*) [ $kasan = 0 ] || ok=1 ;;
	__ubsan_handle_*) [ $ubsan = 0 ] || ok=1 ;;
	esac
	for a in "${allow[@]}"; do
		[ "$sym" = "$a" ] && ok=1
	done
	[ $ok = 1 ] || finding "undefined symbol $sym"
done < <(nm -u "$obj" | awk '{ print $NF }')

if [ $fail = 0 ]; then
	echo "$obj: freestanding OK"
	exit 0
fi
echo "$obj: NOT freestanding (see above)" >&2
exit 1
