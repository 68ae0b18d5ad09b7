/* SPDX-License-Identifier: Apache-2.0 */
/* PTX kernels for the graph and capture tests (test_emu_graph.c,
 * test_emu_capture.c). */
#ifndef TD_TEST_EMU_GRAPH_KERNELS_H
#define TD_TEST_EMU_GRAPH_KERNELS_H

/* axpb(p, n, a, b): p[i] = p[i] * a + b for i < n.
 * setcond(h, p): cudaGraphSetConditional(h, *p).
 * countdown(p, h, log): n = *p; log[n] = 1; *p = n - 1; set h to n - 1.
 * oob(p): writes far past p (a fault). */
static const char ptx[] =
    ".version 7.8\n.target sm_70\n.address_size 64\n"
    ".extern .func cudaGraphSetConditional(.param .b64 cudaGraphSetConditional_param_0, "
    ".param .b32 cudaGraphSetConditional_param_1);\n"
    ".visible .entry axpb(.param .u64 p, .param .u32 n, .param .u32 a, .param .u32 b)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<9>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r1, [n];\n    ld.param.u32 %r2, [a];\n"
    "    ld.param.u32 %r3, [b];\n    mov.u32 %r4, %ctaid.x;\n    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %tid.x;\n    mad.lo.u32 %r7, %r4, %r5, %r6;\n    setp.ge.u32 %p1, %r7, %r1;\n"
    "    @%p1 bra $L_end;\n    mul.wide.u32 %rd2, %r7, 4;\n    add.u64 %rd3, %rd1, %rd2;\n"
    "    ld.global.u32 %r8, [%rd3];\n    mad.lo.u32 %r8, %r8, %r2, %r3;\n    st.global.u32 [%rd3], %r8;\n"
    "$L_end:\n    ret;\n}\n"
    ".visible .entry setcond(.param .u64 h, .param .u64 p)\n{\n"
    "    .reg .b32 %r<2>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.u64 %rd1, [h];\n    ld.param.u64 %rd2, [p];\n    ld.global.u32 %r1, [%rd2];\n"
    "    {\n    .param .b64 param0;\n    st.param.b64 [param0+0], %rd1;\n    .param .b32 param1;\n"
    "    st.param.b32 [param1+0], %r1;\n    call.uni cudaGraphSetConditional, (param0, param1);\n    }\n"
    "    ret;\n}\n"
    ".visible .entry countdown(.param .u64 p, .param .u64 h, .param .u64 log)\n{\n"
    "    .reg .b32 %r<3>;\n    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u64 %rd2, [h];\n    ld.param.u64 %rd3, [log];\n"
    "    ld.global.u32 %r1, [%rd1];\n    mul.wide.u32 %rd4, %r1, 4;\n    add.u64 %rd5, %rd3, %rd4;\n"
    "    mov.u32 %r2, 1;\n    st.global.u32 [%rd5], %r2;\n    sub.u32 %r1, %r1, 1;\n"
    "    st.global.u32 [%rd1], %r1;\n"
    "    {\n    .param .b64 param0;\n    st.param.b64 [param0+0], %rd2;\n    .param .b32 param1;\n"
    "    st.param.b32 [param1+0], %r1;\n    call.uni cudaGraphSetConditional, (param0, param1);\n    }\n"
    "    ret;\n}\n"
    ".visible .entry oob(.param .u64 p)\n{\n"
    "    .reg .b32 %r<2>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.u64 %rd1, [p];\n    add.u64 %rd2, %rd1, 1048576000;\n    mov.u32 %r1, 7;\n"
    "    st.global.u32 [%rd2], %r1;\n    ret;\n}\n";

#endif
