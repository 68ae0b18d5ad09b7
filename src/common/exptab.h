/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's private export tables that tdtrace knows by UUID
 * (docs/cuda-runtime-interface.md), and the answer to
 * the runtime's integrity check ("The integrity check" there). Shared by the shim, which wraps
 * the tables, and tdtrace, which prints their names. */
#ifndef TD_EXPTAB_H
#define TD_EXPTAB_H

#include <stddef.h>
#include <stdint.h>

enum td_exptab {
    TD_EXPTAB_CUDART_INTERFACE,
    TD_EXPTAB_TOOLS_RUNTIME_CALLBACK_HOOKS,
    TD_EXPTAB_TOOLS_TLS,
    TD_EXPTAB_CONTEXT_LOCAL_STORAGE,
    TD_EXPTAB_CONTEXT_CHECKS,
    TD_EXPTAB_INTEGRITY_CHECK,
    TD_EXPTAB_TOOLS_CONTEXT,   /* asked for by cuBLAS and cuFFT */
    TD_EXPTAB_TOOLS_MODULE,    /* asked for by cuFFT; the emulator has none */
    TD_EXPTAB__COUNT
};

struct td_exptab_info {
    const char *name;
    unsigned char uuid[16]; /* in the byte order the runtime passes it */
    int nslots;             /* the documented count (a sized table: at least
                               this many; slot 0 says how many there are) */
    int sized;              /* slot 0 holds the table's size in bytes */
};

extern const struct td_exptab_info td_exptabs[TD_EXPTAB__COUNT];
/* the table with this UUID, or -1 */
int td_exptab_find(const unsigned char uuid[16]);

/* INTEGRITY_CHECK slot 1: what the runtime expects for (version, seconds),
 * given what it saw: the driver version, the addresses of the
 * CUDART_INTERFACE and INTEGRITY_CHECK tables and of the slot function, its
 * pid and thread, and each device's UUID and PCI domain, bus and device. */
struct td_integrity_dev { unsigned char uuid[16]; int32_t pci_domain, pci_bus, pci_device; };
/* the message: a packed 48-byte little-endian record, then 28 bytes per
 * device; out holds 48 + 28 * ndev bytes. Returns its length. */
size_t td_integrity_message(uint32_t driver_version, uint32_t version, uint32_t pid, uint32_t tid,
                            uint64_t cudart_table, uint64_t integrity_table, uint64_t slot_fn,
                            uint64_t unix_seconds, const struct td_integrity_dev *devs, int ndev,
                            unsigned char *out);
/* HMAC-MD2 of msg under the check's key, as two little-endian u64 */
void td_integrity_digest(const void *msg, size_t len, uint64_t out[2]);
/* the answer: the version % 10 rules, else the digest of the message */
#define TD_INTEGRITY_MAX_DEVICES 64
void td_integrity_answer(uint32_t driver_version, uint32_t version, uint32_t pid, uint32_t tid,
                         uint64_t cudart_table, uint64_t integrity_table, uint64_t slot_fn,
                         uint64_t unix_seconds, const struct td_integrity_dev *devs, int ndev,
                         uint64_t out[2]);

#endif
