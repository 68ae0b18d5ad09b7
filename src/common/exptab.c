/* SPDX-License-Identifier: Apache-2.0 */
#include "exptab.h"

#include <string.h>

#include "md2.h"

const struct td_exptab_info td_exptabs[TD_EXPTAB__COUNT] = {
    [TD_EXPTAB_CUDART_INTERFACE] = { "CUDART_INTERFACE",
        { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 },
        13, 1 },
    [TD_EXPTAB_TOOLS_RUNTIME_CALLBACK_HOOKS] = { "TOOLS_RUNTIME_CALLBACK_HOOKS",
        { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 },
        7, 1 },
    [TD_EXPTAB_TOOLS_TLS] = { "TOOLS_TLS",
        { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc },
        4, 1 },
    [TD_EXPTAB_CONTEXT_LOCAL_STORAGE] = { "CONTEXT_LOCAL_STORAGE",
        { 0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93 },
        4, 0 },
    [TD_EXPTAB_CONTEXT_CHECKS] = { "CONTEXT_CHECKS",
        { 0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e },
        4, 1 },
    [TD_EXPTAB_INTEGRITY_CHECK] = { "INTEGRITY_CHECK",
        { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 },
        3, 1 },
    /* names from NVIDIA's own symbols for them (CU_ETID_ToolsContext,
     * CU_ETID_ToolsModule); counts: the slots known to be called */
    [TD_EXPTAB_TOOLS_CONTEXT] = { "TOOLS_CONTEXT",
        { 0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2 },
        5, 1 },
    [TD_EXPTAB_TOOLS_MODULE] = { "TOOLS_MODULE",
        { 0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99, 0x1e },
        8, 1 },
};

int td_exptab_find(const unsigned char uuid[16])
{
    for (int i = 0; i < TD_EXPTAB__COUNT; i++)
        if (memcmp(td_exptabs[i].uuid, uuid, 16) == 0)
            return i;
    return -1;
}

static unsigned char *le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static unsigned char *le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

size_t td_integrity_message(uint32_t driver_version, uint32_t version, uint32_t pid, uint32_t tid,
                            uint64_t cudart_table, uint64_t integrity_table, uint64_t slot_fn,
                            uint64_t unix_seconds, const struct td_integrity_dev *devs, int ndev,
                            unsigned char *out)
{
    unsigned char *p = out;
    p = le32(p, driver_version);
    p = le32(p, version);
    p = le32(p, pid);
    p = le32(p, tid);
    p = le64(p, cudart_table);
    p = le64(p, integrity_table);
    p = le64(p, slot_fn);
    p = le64(p, unix_seconds);
    for (int i = 0; i < ndev; i++) {
        memcpy(p, devs[i].uuid, 16);
        p = le32(p + 16, (uint32_t)devs[i].pci_domain);
        p = le32(p, (uint32_t)devs[i].pci_bus);
        p = le32(p, (uint32_t)devs[i].pci_device);
    }
    return (size_t)(p - out);
}

void td_integrity_digest(const void *msg, size_t len, uint64_t out[2])
{
    static const unsigned char key[16] = { 0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                           0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F };
    unsigned char h[16];
    td_hmac_md2(key, sizeof(key), msg, len, h);
    out[0] = out[1] = 0;
    for (int i = 7; i >= 0; i--) {
        out[0] = out[0] << 8 | h[i];
        out[1] = out[1] << 8 | h[8 + i];
    }
}

void td_integrity_answer(uint32_t driver_version, uint32_t version, uint32_t pid, uint32_t tid,
                         uint64_t cudart_table, uint64_t integrity_table, uint64_t slot_fn,
                         uint64_t unix_seconds, const struct td_integrity_dev *devs, int ndev,
                         uint64_t out[2])
{
    if (version % 10 == 0) {
        out[0] = 0x3341181C03CB675CULL;
        out[1] = 0x8ED383AA1F4CD1E8ULL;
        return;
    }
    if (version % 10 == 1) {
        out[0] = 0x1841181C03CB675CULL;
        out[1] = 0x8ED383AA1F4CD1E8ULL;
        return;
    }
    if (ndev > TD_INTEGRITY_MAX_DEVICES)
        ndev = TD_INTEGRITY_MAX_DEVICES;
    unsigned char msg[48 + 28 * TD_INTEGRITY_MAX_DEVICES];
    size_t n = td_integrity_message(driver_version, version, pid, tid, cudart_table, integrity_table,
                                    slot_fn, unix_seconds, devs, ndev, msg);
    td_integrity_digest(msg, n, out);
}
