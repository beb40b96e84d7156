// MuJoCo 4.0.0's side of tools/bench/zoo_table.py: the work of derivatives/examples/zoo_phases.rs
// through MuJoCo's C API, each phase in one function `zoo_phase_*` (callgrind:
// --toggle-collect='*zoo_phase_*' --dump-after='*zoo_phase_*'), each call once before the phase
// (warm-up). Built by the script against the Python wheel's libmujoco and headers:
//
//   zoo_phases_mujoco MODEL STATE.txt CTRL.csv K NFD
//
// STATE.txt: qpos, qvel, act, ctrl, qacc_warmstart, time, whitespace-separated, in that order.
//
// With ZOO_PHASES_CPU=R in the environment (not under callgrind) the step phase is also run R
// more times from the state, each on the thread's CPU clock, and the fastest is printed as
// "step_cpu_us: X" per step (tools/bench/flops.py: cycles per step).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static int read_vec(FILE* f, mjtNum* x, int n) {
  for (int i = 0; i < n; i++) {
    if (fscanf(f, " %lf ,", x + i) != 1) return 0;
  }
  return 1;
}

__attribute__((noinline)) void zoo_phase_step(const mjModel* m, mjData* d, const mjtNum* c,
                                              int k) {
  for (int i = 0; i < k; i++) {
    if (m->nu) memcpy(d->ctrl, c + (size_t)i * m->nu, sizeof(mjtNum) * m->nu);
    mj_step(m, d);
  }
}

__attribute__((noinline)) void zoo_phase_forward(const mjModel* m, mjData* d, int k) {
  for (int i = 0; i < k; i++) mj_forward(m, d);
}

__attribute__((noinline)) void zoo_phase_inverse(const mjModel* m, mjData* d, int k) {
  for (int i = 0; i < k; i++) mj_inverse(m, d);
}

__attribute__((noinline)) void zoo_phase_fd(const mjModel* m, mjData* d, mjtNum* a, mjtNum* b,
                                            int k) {
  for (int i = 0; i < k; i++) mjd_transitionFD(m, d, 1e-6, 0, a, b, NULL, NULL);
}

static double thread_cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: zoo_phases_mujoco MODEL STATE.txt CTRL.csv K NFD\n");
    return 2;
  }
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "%s: %s\n", argv[1], err);
    return 1;
  }
  int k = atoi(argv[4]), nfd = atoi(argv[5]);
  mjData* s = mj_makeData(m);
  FILE* f = fopen(argv[2], "r");
  if (!f || !read_vec(f, s->qpos, m->nq) || !read_vec(f, s->qvel, m->nv) ||
      !read_vec(f, s->act, m->na) || !read_vec(f, s->ctrl, m->nu) ||
      !read_vec(f, s->qacc_warmstart, m->nv) || !read_vec(f, &s->time, 1)) {
    fprintf(stderr, "%s: bad state file\n", argv[2]);
    return 1;
  }
  fclose(f);
  mjtNum* c = calloc((size_t)(k + 1) * (m->nu ? m->nu : 1), sizeof(mjtNum));
  f = fopen(argv[3], "r");
  if (!f || !read_vec(f, c, (k + 1) * m->nu)) {
    fprintf(stderr, "%s: bad control file\n", argv[3]);
    return 1;
  }
  fclose(f);
  mjData* d = mj_makeData(m);
  // step: one warm-up step under the first row, then K steps
  mj_copyData(d, m, s);
  if (m->nu) memcpy(d->ctrl, c, sizeof(mjtNum) * m->nu);
  mj_step(m, d);
  zoo_phase_step(m, d, c + m->nu, k);
  printf("step: time %.6f nefc %d\n", d->time, d->nefc);
  const char* rep = getenv("ZOO_PHASES_CPU");
  if (rep && atoi(rep) > 0 && k > 0) {
    double best = -1;
    for (int r = 0; r < atoi(rep); r++) {
      mj_copyData(d, m, s);
      if (m->nu) memcpy(d->ctrl, c, sizeof(mjtNum) * m->nu);
      mj_step(m, d);
      double t0 = thread_cpu_us();
      zoo_phase_step(m, d, c + m->nu, k);
      double us = (thread_cpu_us() - t0) / k;
      if (best < 0 || us < best) best = us;
    }
    printf("step_cpu_us: %.4f\n", best);
  }
  // forward at the state, inverse at its qacc
  mj_copyData(d, m, s);
  mj_forward(m, d);
  zoo_phase_forward(m, d, k);
  printf("forward: nefc %d\n", d->nefc);
  mj_inverse(m, d);
  zoo_phase_inverse(m, d, k);
  // FD transition (A, B); mjd_transitionFD raises a fatal error under RK4
  if (m->opt.integrator == mjINT_RK4) {
    printf("fd: not supported: mjd_transitionFD does not support the RK4 integrator\n");
    mj_deleteData(d);
    mj_deleteData(s);
    mj_deleteModel(m);
    free(c);
    return 0;
  }
  int nx = 2 * m->nv + m->na;
  mjtNum* a = calloc((size_t)nx * nx + 1, sizeof(mjtNum));
  mjtNum* b = calloc((size_t)nx * (m->nu ? m->nu : 1), sizeof(mjtNum));
  mj_copyData(d, m, s);
  mj_forward(m, d);
  mjd_transitionFD(m, d, 1e-6, 0, a, b, NULL, NULL);
  zoo_phase_fd(m, d, a, b, nfd);
  free(a);
  free(b);
  free(c);
  mj_deleteData(d);
  mj_deleteData(s);
  mj_deleteModel(m);
  return 0;
}
