/* SPDX-License-Identifier: Apache-2.0 */
/* Names of NVIDIA's numbers: NV_STATUS codes (nvstatus.def), RM object
 * classes (nvclass.def) and frontend escapes (nvidia.def), looked up by
 * value. The lowest file of the module: the structure printer and the
 * families use it, it uses nothing of theirs. */
#include <stddef.h>

#include "ioctl_int.h"

const char *td_nv_name_find(const struct td_nv_name *tab, size_t n, unsigned v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tab[mid].v == v)
            return tab[mid].name;
        if (tab[mid].v < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const struct td_nv_name nv_statuses[] = {
#define NV_STATUS(name, v) { v, #name },
#include "nvstatus.def"
#undef NV_STATUS
};

const char *td_nv_status_name(unsigned status)
{
    return td_nv_name_find(nv_statuses, sizeof(nv_statuses) / sizeof(nv_statuses[0]), status);
}

static const struct td_nv_name nv_classes[] = {
#define NV_CLASS(name, v) { v, #name },
#include "nvclass.def"
#undef NV_CLASS
};

const char *td_nv_class_name(unsigned cls)
{
    return td_nv_name_find(nv_classes, sizeof(nv_classes) / sizeof(nv_classes[0]), cls);
}

/* escapes in the order of nvidia.def (few: searched in turn) */
static const struct td_nv_name nv_escs[] = {
#define NV_ESC(name, nr, printer, a, b) { nr, #name },
#include "nvidia.def"
#undef NV_ESC
};

const char *td_nv_esc_name(unsigned nr)
{
    for (size_t i = 0; i < sizeof(nv_escs) / sizeof(nv_escs[0]); i++)
        if (nv_escs[i].v == nr)
            return nv_escs[i].name;
    return NULL;
}
