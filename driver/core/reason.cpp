// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * reason.cpp - names of the drop reasons (one shim counter per reason).
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* In enum ipc_reason order, which is ABI for the shim's counters. */
constexpr const char *const reason_names[] = {
	"ok",
	"truncated",
	"bad_type",
	"loopback",
	"bad_hwtype",
	"bad_proto",
	"bad_hlen",
	"bad_plen",
	"bad_op",
	"bad_opt_type",
	"bad_opt_len",
	"bad_pad",
	"bad_addr",
	"no_route",
	"queue_full",
	"not_joined",
	"wrong_link",
	"too_big",
	"link_down",
};
static_assert(sizeof(reason_names) / sizeof(reason_names[0]) == IPC_R_COUNT,
	      "a reason without a name");

} // namespace
} // namespace ipc

extern "C" const char *ipc_reason_name(int reason)
{
	return ipc::name_of(ipc::reason_names, reason);
}
