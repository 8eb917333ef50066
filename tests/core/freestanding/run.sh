#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves scripts/check-freestanding.sh: it must accept a clean object and the
# real core, and reject each deliberately bad object with the finding named.
# Usage: run.sh OUTDIR   (from anywhere). The kernel is built with gcc, so
# the flags are gcc's; CXX=clang++ checks only the base/kernel variants.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${1:-$repo/build/core-freestanding}
check=$repo/scripts/check-freestanding.sh
CXX=${CXX:-g++}
mkdir -p "$out"

base=(-O2 -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics
	-nostdinc -nostdinc++ -isystem "$($CXX -print-file-name=include)"
	-std=gnu++20)
kernel=(-mcmodel=kernel -fno-pie -mno-red-zone -mno-sse -mno-mmx -mno-sse2
	-mno-avx -mno-80387 -fno-asynchronous-unwind-tables)
# What Debian's 6.1 KBUILD_CFLAGS add on top (retpoline, rethunk, SLS,
# stack protector, ftrace): their symbols are on the allow list.
kbuild=(-mindirect-branch=thunk-extern -mindirect-branch-register
	-mfunction-return=thunk-extern -mharden-sls=all
	-fstack-protector-strong -pg -mrecord-mcount -mfentry)

# What a KASAN + UBSAN kernel adds (scripts/Makefile.kasan, Makefile.ubsan);
# the checker is then run with --kasan --ubsan.
sanitize=(-fsanitize=kernel-address -fasan-shadow-offset=0xdffffc0000000000
	--param asan-globals=1 --param asan-instrumentation-with-call-threshold=10000
	--param asan-instrument-allocas=1 --param asan-stack=1
	-fsanitize=bounds -fsanitize=shift -fsanitize=integer-divide-by-zero
	-fsanitize=bool -fsanitize=enum)

fail=0
pass=0
check_flags=()

# expect NAME accept|reject PATTERN -- compiler args...
expect() {
	local name=$1 want=$2 pattern=$3
	shift 4
	local obj=$out/$name.o log=$out/$name.log
	if ! $CXX "$@" -c -o "$obj" 2>"$out/$name.cc.log"; then
		echo "FAIL $name: does not compile:" >&2
		cat "$out/$name.cc.log" >&2
		fail=$((fail + 1))
		return
	fi
	"$check" "$obj" "${check_flags[@]}" >"$log" 2>&1
	local rc=$?
	if [ "$want" = accept ] && [ $rc -eq 0 ]; then
		echo "ok   $name: accepted"
		pass=$((pass + 1))
	elif [ "$want" = reject ] && [ $rc -eq 1 ] && grep -q -- "$pattern" "$log"; then
		echo "ok   $name: rejected ($(grep -m1 -- "$pattern" "$log" | sed "s|^$obj: ||"))"
		pass=$((pass + 1))
	else
		echo "FAIL $name: expected $want${pattern:+ with '$pattern'}, exit $rc:" >&2
		cat "$log" >&2
		fail=$((fail + 1))
	fi
}

src=$here
expect good accept "" -- "${base[@]}" "${kernel[@]}" "$src/good.cpp"
expect core accept "" -- "${base[@]}" "${kernel[@]}" "$repo/driver/core/ipoib_core_all.cpp"
if ! $CXX --version | grep -q clang; then
	expect good_kbuild accept "" -- "${base[@]}" "${kernel[@]}" "${kbuild[@]}" "$src/good.cpp"
	expect core_kbuild accept "" -- "${base[@]}" "${kernel[@]}" "${kbuild[@]}" "$repo/driver/core/ipoib_core_all.cpp"
fi
expect bad_ctor reject "section .init_array" -- "${base[@]}" "${kernel[@]}" "$src/bad_ctor.cpp"
expect bad_tls reject "section .tbss" -- "${base[@]}" "${kernel[@]}" "$src/bad_tls.cpp"
expect bad_tls_reloc reject "TPOFF" -- "${base[@]}" "${kernel[@]}" "$src/bad_tls.cpp"
expect bad_strlen reject "undefined symbol strlen" -- "${base[@]}" "${kernel[@]}" "$src/bad_strlen.cpp"
expect bad_new reject "undefined symbol _Znwm" -- "${base[@]}" "${kernel[@]}" "$src/bad_new.cpp"
expect bad_int128 reject "undefined symbol __udivti3" -- "${base[@]}" "${kernel[@]}" "$src/bad_int128.cpp"
expect bad_float reject "%xmm" -- "${base[@]}" -mcmodel=kernel -fno-pie -mno-red-zone "$src/bad_float.cpp"
expect bad_struct_copy reject "%xmm" -- "${base[@]}" -mcmodel=kernel -fno-pie -mno-red-zone "$src/good.cpp"
expect reloc_kernel reject "undefined symbol shared_counter" -- "${base[@]}" "${kernel[@]}" "$src/bad_reloc.cpp"
expect bad_pic reject "GOTPCREL" -- "${base[@]}" -fPIC -mno-sse -mno-80387 -fno-asynchronous-unwind-tables "$src/bad_reloc.cpp"
expect bad_mcmodel reject "R_X86_64_32 in code" -- "${base[@]}" -fno-pie -mno-sse -mno-80387 -fno-asynchronous-unwind-tables "$src/bad_reloc.cpp"
expect bad_eh_frame reject "section .eh_frame" -- "${base[@]}" "${kernel[@]}" -fasynchronous-unwind-tables "$src/good.cpp"
expect bad_user_canary reject "%fs:" -- "${base[@]}" -fno-pie -mno-sse -mno-80387 -fno-asynchronous-unwind-tables -fstack-protector-all "$src/good.cpp"

# A KASAN/UBSAN build: the global-registration constructor and the sanitizer
# runtimes are allowed only with --kasan/--ubsan, and any other constructor
# is still refused.
if ! $CXX --version | grep -q clang; then
	check_flags=(--kasan --ubsan)
	expect core_sanitized accept "" -- "${base[@]}" "${kernel[@]}" "${kbuild[@]}" "${sanitize[@]}" "$repo/driver/core/ipoib_core_all.cpp"
	expect bad_ctor_kasan reject "not KASAN's global registration" -- "${base[@]}" "${kernel[@]}" "${sanitize[@]}" "$src/bad_ctor.cpp"
	check_flags=(--kasan)
	expect core_sanitized_no_ubsan reject "undefined symbol __ubsan_handle" -- "${base[@]}" "${kernel[@]}" "${kbuild[@]}" "${sanitize[@]}" "$repo/driver/core/ipoib_core_all.cpp"
	check_flags=()
	expect core_sanitized_plain reject "section .init_array" -- "${base[@]}" "${kernel[@]}" "${kbuild[@]}" "${sanitize[@]}" "$repo/driver/core/ipoib_core_all.cpp"
fi

# --allow and usage errors
"$check" "$out/bad_strlen.o" --allow strlen >/dev/null 2>&1 &&
	{ echo "ok   --allow strlen accepts bad_strlen"; pass=$((pass + 1)); } ||
	{ echo "FAIL --allow strlen" >&2; fail=$((fail + 1)); }
"$check" >/dev/null 2>&1
[ $? -eq 2 ] && { echo "ok   no argument: usage error"; pass=$((pass + 1)); } ||
	{ echo "FAIL usage error exit" >&2; fail=$((fail + 1)); }
"$check" "$here/run.sh" >/dev/null 2>&1
[ $? -eq 2 ] && { echo "ok   not an ELF object: usage error"; pass=$((pass + 1)); } ||
	{ echo "FAIL non-ELF exit" >&2; fail=$((fail + 1)); }

echo "freestanding: $pass passed, $fail failed"
[ $fail -eq 0 ]
