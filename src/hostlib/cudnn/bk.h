/* SPDX-License-Identifier: Apache-2.0 */
/* cuDNN's backend (graph) API on the host: what its files share
 * (bdesc.c: the descriptors and their attributes; bplan.c: what a graph
 * is made into, and whether this library runs it; bexec.c:
 * cudnnBackendExecute and the host computations of the operations).
 *
 * Every backend descriptor is a struct bk, created by the library and kept
 * in the registry of live handles (kind DK_BACKEND), so a destroyed or
 * made-up one is an error, never dereferenced. A descriptor set as an
 * attribute of another is copied into it (tensors into operations,
 * operations into the graph, the graph into engines...): a program may
 * destroy or reuse it afterwards. */
#ifndef TD_HOSTLIB_BK_H
#define TD_HOSTLIB_BK_H

#include "dnn.h"

#define BK_MAXOPS 16                 /* operations in a graph */
#define BK_MAXT (3 * BK_MAXOPS)      /* distinct tensors in a graph */
#define BK_MAXVP 64                  /* entries of a variant pack */
#define BK_MAXSP (CUDNN_DIM_MAX - 2) /* spatial dimensions of a convolution */

struct bk_tensor {
    unsigned set;                    /* attributes set: 1 << (name - 900) */
    cudnnDataType_t type;
    int nb;
    int64_t dim[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX];
    int64_t uid, align, vcount, vdim;
    int virt, byval;
};

struct bk_conv {
    unsigned set;                    /* 1 << (name - 100) */
    cudnnDataType_t comp;
    cudnnConvolutionMode_t mode;
    int64_t nsp;
    int n[4];                        /* element counts of pre, post, dil, str */
    int64_t v[4][BK_MAXSP];          /* pre paddings, post paddings, dilations, strides */
};
enum { BC_PRE, BC_POST, BC_DIL, BC_STR };

struct bk_pw {
    unsigned set;                    /* 1 << name */
    cudnnPointwiseMode_t mode;
    cudnnDataType_t prec;
    int nan;
    double lower, upper, slope, elu_alpha, softplus_beta, swish_beta;
    int64_t axis;
};

struct bk_mm {
    unsigned set;
    cudnnDataType_t comp;
    double padding;
};

struct bk_red {
    unsigned set;
    cudnnReduceTensorOp_t op;
    cudnnDataType_t comp;
};

/* the operations this library knows */
enum bk_opkind { BO_CONV_FWD, BO_CONV_BWD_DATA, BO_CONV_BWD_FILTER, BO_POINTWISE, BO_MATMUL, BO_REDUCTION };
/* an operation's tensors: convolutions x (dx), w (dw), y (dy); pointwise
 * x, b, y, dy, dx; matmul a, b, c; reduction x, y */
enum { BT_X, BT_W, BT_Y, BT_DY, BT_DX, BT_N };
#define BT_B BT_W
struct bk_op {
    enum bk_opkind kind;
    int has[BT_N];
    struct bk_tensor t[BT_N];
    int has_conv, has_pw, has_mm, has_red;
    struct bk_conv conv;
    struct bk_pw pw;
    struct bk_mm mm;
    struct bk_red red;
    double alpha, beta, alpha2;      /* alpha2: pointwise */
};

struct bk_graph {
    cudnnHandle_t handle;
    int nops;
    struct bk_op ops[BK_MAXOPS];
};

struct bk_engine {
    int has_graph;
    struct bk_graph g;
    int64_t index;
};

struct bk_cfg {
    int has_engine;
    struct bk_engine e;
    int nknobs;
};

struct bk_heur {
    int has_graph;
    struct bk_graph g;
    int mode, has_mode;
};

/* a graph as it runs (bplan.c): its distinct tensors, its operations in an
 * order where each reads only what the program gave or an earlier one
 * wrote; virtual tensors live in host scratch (dense, in their type) */
struct bk_slot {
    struct td td;
    int64_t uid;
    int virt;
    int64_t count;                   /* elements */
    size_t bytes;                    /* a virtual one's scratch */
};
struct bk_prog {
    int nops, nt;
    struct bk_op ops[BK_MAXOPS];
    int arg[BK_MAXOPS][BT_N];        /* slot of each operand, -1 for none */
    struct conv_prob conv[BK_MAXOPS];/* the convolutions' problems */
    struct bk_slot t[BK_MAXT];
    char what[352];                  /* for tdtrace -e lib= and the plan's JSON */
};

struct bk_plan {
    cudnnHandle_t handle;
    int has_cfg;
    struct bk_cfg c;
    struct bk_prog prog;
};

struct bk_vpack {
    int nuid, nptr;
    int64_t uid[BK_MAXVP];
    void *ptr[BK_MAXVP];
    void *ws;
    int has_ws;
};

struct bk_knob {
    int64_t type, value;
};

/* allocated to the size of its type's member of the union (bdesc.c): only
 * that member is ever touched, after a check of the type */
struct bk {
    cudnnBackendDescriptorType_t type;
    int final;                       /* finalized */
    union {
        struct bk_tensor tensor;
        struct bk_conv conv;
        struct bk_pw pw;
        struct bk_mm mm;
        struct bk_red red;
        struct bk_op op;
        struct bk_graph graph;
        struct bk_engine engine;
        struct bk_cfg cfg;
        struct bk_heur heur;
        struct bk_plan plan;
        struct bk_vpack vp;
        struct bk_knob knob;
    } u;
};

/* ---- bplan.c ------------------------------------------------------------------ */
/* Checks a graph's operations and makes them into a program: the
 * operations in the order they run, each operand a slot. NOT_SUPPORTED
 * (with a message for cudnnGetLastErrorString naming what) for a graph this
 * library does not run, BAD_PARAM for one that is wrong. */
cudnnStatus_t bk_compile(const struct bk_graph *g, struct bk_prog *p);
/* prepares the program's convolutions once (oneDNN may refuse one:
 * NOT_SUPPORTED) and keeps them for the executions (convexec.c's cache) */
cudnnStatus_t bk_prepare(const struct bk_prog *p);


#endif
