/* SPDX-License-Identifier: Apache-2.0 */
/* The shim's start, when the library is loaded (so that no call's time
 * includes it): the connection to tdtrace, the backend, the policy, the
 * shim's own entry points, the hello record, and (--runtime) the CUDA
 * runtime's functions patched. Nothing calls into this
 * file: it only starts the others. */
#include <pthread.h>
#include <stdlib.h>

#include "shim.h"

__attribute__((constructor)) static void shim_load(void)
{
    /* not started by tdtrace: untraced (the backend loads at the first
     * call), or loaded by tdtrace -p, which then calls attach.c */
    if (!getenv("TDTRACE_SOCK"))
        return;
    td_conn_start();
    td_backend_load();
    td_shim_listen_emu();
    td_shim_policy_init();
    td_procaddr_register();
    td_exptab_register();
    pthread_atfork(NULL, NULL, td_shim_atfork_child);
    td_shim_hello();
    td_shim_warning(td_rt_start());
    td_shim_warning(td_lib_start());
}
