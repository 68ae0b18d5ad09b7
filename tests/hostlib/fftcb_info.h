/* SPDX-License-Identifier: Apache-2.0 */
// What fftcb.cu's callbacks (fftcb_cb.cu) read through callerInfo: a
// struct in device memory.
#ifndef FFTCB_INFO_H
#define FFTCB_INFO_H

struct cb_info {
    float scale;           // load: the element times this
    float oscale;          // store: the element times this
    const float *addf;     // load: plus this array at the element's offset (scalars; complex: 2 each)
    const double *addd;
    unsigned shared;       // store: bytes of shared memory the callback may touch (0: none)
};

#endif
