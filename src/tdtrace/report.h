/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace report: a timeline file (--timeline) made into one
 * self-contained HTML page (src/report/report.html, embedded at build
 * time as td_report_html). See docs/report.md. */
#ifndef TD_REPORT_H
#define TD_REPORT_H

#include <stddef.h>

/* the largest timeline file tdtrace report takes */
#define TD_REPORT_MAX_INPUT (256u << 20)

/* the page's template (generated from src/report/report.html by
 * tools/embed.c): the timeline goes where TD_REPORT_MARKER is */
#define TD_REPORT_MARKER "@TD_TIMELINE_JSON@"
extern const unsigned char td_report_html[];
extern const size_t td_report_html_len;

/* tdtrace report ARGS (argv[0] is "report"): the exit status */
int td_report_main(int argc, char **argv);
/* The page of the timeline file in (checked) written to out (a new file,
 * or "-": standard output); dies with the reason when it cannot. */
void td_report_write(const char *in, const char *out);

#endif
