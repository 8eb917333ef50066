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
	"ok", /* IPC_R_OK */
	"truncated", /* IPC_R_TRUNCATED */
	"bad_type", /* IPC_R_BAD_TYPE */
	"loopback", /* IPC_R_LOOPBACK */
	"bad_hwtype", /* IPC_R_BAD_HWTYPE */
	"bad_proto", /* IPC_R_BAD_PROTO */
	"bad_hlen", /* IPC_R_BAD_HLEN */
	"bad_plen", /* IPC_R_BAD_PLEN */
	"bad_op", /* IPC_R_BAD_OP */
	"bad_opt_type", /* IPC_R_BAD_OPT_TYPE */
	"bad_opt_len", /* IPC_R_BAD_OPT_LEN */
	"bad_pad", /* IPC_R_BAD_PAD */
	"bad_addr", /* IPC_R_BAD_ADDR */
	"no_route", /* IPC_R_NO_ROUTE */
	"queue_full", /* IPC_R_QUEUE_FULL */
	"not_joined", /* IPC_R_NOT_JOINED */
	"wrong_link", /* IPC_R_WRONG_LINK */
	"too_big", /* IPC_R_TOO_BIG */
	"link_down", /* IPC_R_LINK_DOWN */
	"path_table_full", /* IPC_R_PATH_TABLE_FULL */
	"group_table_full", /* IPC_R_GROUP_TABLE_FULL */
};
static_assert(sizeof(reason_names) / sizeof(reason_names[0]) == IPC_R_COUNT,
	      "a reason without a name");

} // namespace
} // namespace ipc

extern "C" const char *ipc_reason_name(int reason)
{
	return ipc::name_of(ipc::reason_names, reason);
}
