//! k-means of `d`-vectors (vector palettes, `cluster-dim` > 1), in f64
//! over the vectors' exact values: k-means++ seedings from fixed seeds,
//! each run to convergence by Lloyd's iterations; the one of least sum of
//! squared errors, refined by Hartigan's single moves.
//!
//! Every sum over the vectors is made per chunk of [`CHUNK`] vectors, in
//! vector order, and the chunks' sums are added in chunk order; every
//! other step is per vector, or sequential. So the result does not depend
//! on the number of workers.

use coreai_ir::rng::SplitMix64;
use std::ops::Range;

/// Vectors per chunk of every sum ([`Data::chunks`]).
const CHUNK: usize = 1 << 14;

/// k-means++ seedings tried (seeds `0..SEEDINGS`) on groups of up to
/// `SEEDED_VECTORS / SEEDINGS` (2^16) vectors; on a larger group of `n`,
/// `SEEDED_VECTORS / n` and at least 1, so that it costs about what
/// sixteen seedings of 2^16 vectors do (the more vectors, the less the
/// seedings' errors differ).
const SEEDINGS: usize = 16;
const SEEDED_VECTORS: usize = 1 << 20;

/// Lloyd iterations (and Hartigan passes) at most (scikit-learn's cap).
const MAX_ITERATIONS: usize = 300;

/// Lloyd's iterations (and Hartigan's passes) stop once one lowers the
/// error by less than this fraction of it: on large groups the last
/// iterations move a few boundary vectors each, for hundreds of
/// iterations.
const TOLERANCE: f64 = 1e-6;

/// Hartigan's passes at most `HARTIGAN_VISITS / n` on a group of `n`
/// vectors (at least 1): each pass is sequential, `n·k` distances.
const HARTIGAN_VISITS: usize = 1 << 22;

/// The clusters of `x` (`x.len() / d` vectors of `d` consecutive values)
/// into at most `k`: the centers (`d` values each, rounded by `round`, in
/// lexicographic order) and each vector's center, the nearest rounded one
/// (the first of equals). Fewer centers than `k` when there are fewer
/// distinct vectors: then each is its own center.
///
/// - Each seeding picks centers by k-means++: the first uniformly, each
///   next the best of `2 + ⌊ln k⌋` candidates drawn with probability
///   `D(x)²` (the squared distance to the nearest center so far), the one
///   leaving the least `Σ D²` (scikit-learn's greedy variant).
/// - Lloyd's iterations then alternate assigning each vector to its
///   nearest center and moving each center to its vectors' mean, until no
///   vector changes center, or one lowers `E = Σ‖x - c‖²` by less than
///   [`TOLERANCE`] of it, or [`MAX_ITERATIONS`]. Both steps lower `E`. A
///   center left without vectors moves to the vector farthest from its
///   center. Hamerly's bounds skip the vectors whose center cannot have
///   changed (the same assignments, but where two centers are equally
///   near).
/// - The seeding of least `E` is then refined by [`Data::hartigan`], and
///   Lloyd's iterations again.
pub(super) fn cluster(
    x: &[f32],
    d: usize,
    k: usize,
    threads: usize,
    round: impl Fn(f64) -> f64,
) -> (Vec<f64>, Vec<u8>) {
    let n = x.len() / d;
    let data = Data { x, d, n, threads };
    let mut best: Option<(f64, Vec<f64>)> = None;
    for seed in 0..(SEEDED_VECTORS / n.max(1)).clamp(1, SEEDINGS) {
        let centers = data.seed(k, &mut SplitMix64(seed as u64));
        let distinct = centers.len() / d;
        let (centers, error) = data.lloyd(centers);
        if best.as_ref().is_none_or(|(b, _)| error < *b) {
            best = Some((error, centers));
        }
        if distinct < k {
            // Fewer distinct vectors than centers: each is a center, as
            // with any seed.
            break;
        }
    }
    let (_, centers) = best.expect("at least one seeding");
    let (centers, _) = data.lloyd(data.hartigan(centers));
    // Each center rounded once to the weight's type, in lexicographic
    // order; each vector then takes the nearest rounded center.
    let mut rows: Vec<Vec<f64>> = centers
        .chunks(d)
        .map(|c| c.iter().map(|&v| round(v)).collect())
        .collect();
    rows.sort_by(|a, b| {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let centers = rows.concat();
    let (labels, _) = data.nearest_all(&centers);
    (centers, labels)
}

/// `‖v - c‖²` in f64.
fn distance(v: &[f32], c: &[f64]) -> f64 {
    v.iter()
        .zip(c)
        .map(|(&a, &b)| {
            let t = a as f64 - b;
            t * t
        })
        .sum()
}

/// The nearest of `centers` (`d` values each) to `v` (the first of
/// equals), its squared distance, and the second least squared distance
/// (infinite for one center).
fn nearest(v: &[f32], centers: &[f64], d: usize) -> (usize, f64, f64) {
    let (mut j, mut first, mut second) = (0, f64::INFINITY, f64::INFINITY);
    for (i, c) in centers.chunks(d).enumerate() {
        let e = distance(v, c);
        if e < first {
            (j, second, first) = (i, first, e);
        } else if e < second {
            second = e;
        }
    }
    (j, first, second)
}

/// The vectors and the workers that share their passes.
struct Data<'x> {
    x: &'x [f32],
    d: usize,
    n: usize,
    threads: usize,
}

/// A vector's center and Hamerly's bounds: `upper` at least its distance
/// (not squared) to its center, `lower` at most its distance to any other.
#[derive(Clone, Copy)]
struct Bounds {
    center: u8,
    upper: f64,
    lower: f64,
}

/// Per-center vector counts, coordinate sums and sums of squares of one
/// chunk, and how many of its vectors changed center.
struct Sums {
    count: Vec<f64>,
    sum: Vec<f64>,
    squares: Vec<f64>,
    changed: usize,
}

/// The chunks' sums added in chunk order: per center the count, the
/// coordinate sums, and `E` with each center at its vectors' mean,
/// `Σ_j (Σ‖x‖² - ‖Σx‖² / n_j)`.
fn total(sums: &[Sums], k: usize, d: usize) -> (Vec<f64>, Vec<f64>, f64) {
    let mut count = vec![0.0; k];
    let mut sum = vec![0.0; k * d];
    let mut squares = vec![0.0; k];
    for s in sums {
        for (a, b) in count.iter_mut().zip(&s.count) {
            *a += b;
        }
        for (a, b) in sum.iter_mut().zip(&s.sum) {
            *a += b;
        }
        for (a, b) in squares.iter_mut().zip(&s.squares) {
            *a += b;
        }
    }
    let error = (0..k)
        .filter(|&j| count[j] > 0.0)
        .map(|j| {
            let s2: f64 = sum[j * d..(j + 1) * d].iter().map(|v| v * v).sum();
            (squares[j] - s2 / count[j]).max(0.0)
        })
        .sum();
    (count, sum, error)
}

/// How the centers moved since the bounds were set: each one's distance
/// `moved[j]`, and half the distance from each to the nearest other,
/// `half_gap[j]` (a vector within it of its center stays).
struct Moves {
    moved: Vec<f64>,
    half_gap: Vec<f64>,
}

impl Data<'_> {
    fn vector(&self, i: usize) -> &[f32] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// `f(range of vectors)` for every chunk, spread over the workers;
    /// the results in chunk order.
    fn chunks<R: Send>(&self, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
        let ranges: Vec<Range<usize>> = (0..self.n)
            .step_by(CHUNK)
            .map(|s| s..(s + CHUNK).min(self.n))
            .collect();
        let threads = self.threads.clamp(1, ranges.len().max(1));
        if threads == 1 {
            return ranges.into_iter().map(f).collect();
        }
        let per = ranges.len().div_ceil(threads);
        let f = &f;
        std::thread::scope(|scope| {
            let workers: Vec<_> = ranges
                .chunks(per)
                .map(|rs| scope.spawn(move || rs.iter().cloned().map(f).collect::<Vec<R>>()))
                .collect();
            workers
                .into_iter()
                .flat_map(|h| h.join().expect("a k-means worker panicked"))
                .collect()
        })
    }

    /// [`Data::chunks`] with each chunk's part of `out` (one element per
    /// vector): `f(first vector, part)`.
    fn chunks_mut<A: Send, R: Send>(
        &self,
        out: &mut [A],
        f: impl Fn(usize, &mut [A]) -> R + Sync,
    ) -> Vec<R> {
        let mut parts: Vec<(usize, &mut [A])> = out
            .chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, p)| (c * CHUNK, p))
            .collect();
        let threads = self.threads.clamp(1, parts.len().max(1));
        if threads == 1 {
            return parts.into_iter().map(|(s, p)| f(s, p)).collect();
        }
        let per = parts.len().div_ceil(threads);
        let f = &f;
        std::thread::scope(|scope| {
            let mut workers = Vec::new();
            while !parts.is_empty() {
                let rest = parts.split_off(per.min(parts.len()));
                let mine = std::mem::replace(&mut parts, rest);
                workers.push(
                    scope.spawn(move || mine.into_iter().map(|(s, p)| f(s, p)).collect::<Vec<R>>()),
                );
            }
            workers
                .into_iter()
                .flat_map(|h| h.join().expect("a k-means worker panicked"))
                .collect()
        })
    }

    /// Each vector's nearest center (the first of equals) and `Σ‖x - c‖²`.
    fn nearest_all(&self, centers: &[f64]) -> (Vec<u8>, f64) {
        let mut labels = vec![0u8; self.n];
        let errors = self.chunks_mut(&mut labels, |first, out| {
            let mut e = 0.0;
            for (i, l) in out.iter_mut().enumerate() {
                let (j, dist, _) = nearest(self.vector(first + i), centers, self.d);
                *l = j as u8;
                e += dist;
            }
            e
        });
        (labels, errors.iter().sum())
    }

    /// k-means++ (greedy): up to `k` centers, fewer when every vector is
    /// already one.
    fn seed(&self, k: usize, rng: &mut SplitMix64) -> Vec<f64> {
        let d = self.d;
        let as_center =
            |i: usize| -> Vec<f64> { self.vector(i).iter().map(|&v| v as f64).collect() };
        let mut centers = as_center(below(rng, self.n));
        // D² of each vector, and each chunk's sum of them.
        let mut d2 = vec![0.0f64; self.n];
        let mut sums = self.chunks_mut(&mut d2, |first, out| {
            let c = &centers[..d];
            let mut s = 0.0;
            for (i, o) in out.iter_mut().enumerate() {
                *o = distance(self.vector(first + i), c);
                s += *o;
            }
            s
        });
        let trials = 2 + (k as f64).ln().floor() as usize;
        for _ in 1..k {
            let total: f64 = sums.iter().sum();
            if total <= 0.0 {
                break;
            }
            let points: Vec<Vec<f64>> = (0..trials)
                .map(|_| as_center(draw(&d2, &sums, rng.unit() * total)))
                .collect();
            // Σ min(D², ‖x - candidate‖²) of each candidate.
            let left = self.chunks(|r| {
                points
                    .iter()
                    .map(|p| {
                        r.clone()
                            .map(|i| d2[i].min(distance(self.vector(i), p)))
                            .sum::<f64>()
                    })
                    .collect::<Vec<f64>>()
            });
            let potential = |t: usize| left.iter().map(|l| l[t]).sum::<f64>();
            let (mut pick, mut least) = (0, potential(0));
            for t in 1..trials {
                let p = potential(t);
                if p < least {
                    (pick, least) = (t, p);
                }
            }
            let c = &points[pick];
            sums = self.chunks_mut(&mut d2, |first, out| {
                let mut s = 0.0;
                for (i, o) in out.iter_mut().enumerate() {
                    *o = o.min(distance(self.vector(first + i), c));
                    s += *o;
                }
                s
            });
            centers.extend_from_slice(c);
        }
        centers
    }

    /// One assignment pass: each vector's center given `centers` (all
    /// checked without `moves`; with them, only those whose bounds allow
    /// a nearer center), and per-chunk sums.
    fn assign(&self, centers: &[f64], moves: Option<&Moves>, state: &mut [Bounds]) -> Vec<Sums> {
        let (d, k) = (self.d, centers.len() / self.d);
        // The largest move, the center making it, and the second largest:
        // a vector's lower bound drops by the largest move of another center.
        let (mut most, mut most_at, mut next) = (0.0f64, usize::MAX, 0.0f64);
        if let Some(m) = moves {
            for (j, &v) in m.moved.iter().enumerate() {
                if v > most {
                    (next, most, most_at) = (most, v, j);
                } else if v > next {
                    next = v;
                }
            }
        }
        self.chunks_mut(state, |first, out| {
            let mut s = Sums {
                count: vec![0.0; k],
                sum: vec![0.0; k * d],
                squares: vec![0.0; k],
                changed: 0,
            };
            for (i, b) in out.iter_mut().enumerate() {
                let v = self.vector(first + i);
                let a = b.center as usize;
                let check = match moves {
                    None => true,
                    Some(m) => {
                        b.upper += m.moved[a];
                        b.lower -= if a == most_at { next } else { most };
                        // Slack for rounding: a tie is checked, not skipped.
                        let bound = m.half_gap[a].max(b.lower) * (1.0 - 1e-12);
                        b.upper > bound && {
                            b.upper = distance(v, &centers[a * d..(a + 1) * d]).sqrt();
                            b.upper > bound
                        }
                    }
                };
                if check {
                    let (j, first, second) = nearest(v, centers, d);
                    if moves.is_none() || j != a {
                        s.changed += 1;
                    }
                    *b = Bounds {
                        center: j as u8,
                        upper: first.sqrt(),
                        lower: second.sqrt(),
                    };
                }
                let j = b.center as usize;
                s.count[j] += 1.0;
                for (t, &x) in s.sum[j * d..(j + 1) * d].iter_mut().zip(v) {
                    *t += x as f64;
                    s.squares[j] += x as f64 * x as f64;
                }
            }
            s
        })
    }

    /// Lloyd's iterations from `centers` to convergence: the centers (each
    /// its vectors' mean) and `Σ‖x - c‖²`.
    fn lloyd(&self, mut centers: Vec<f64>) -> (Vec<f64>, f64) {
        let (d, k) = (self.d, centers.len() / self.d);
        let blank = Bounds {
            center: 0,
            upper: 0.0,
            lower: 0.0,
        };
        let mut state = vec![blank; self.n];
        let mut sums = self.assign(&centers, None, &mut state);
        let mut last = f64::INFINITY;
        for _ in 0..MAX_ITERATIONS {
            // Each center to its vectors' mean; `error` is E then.
            let (count, sum, error) = total(&sums, k, d);
            let old = centers.clone();
            for j in (0..k).filter(|&j| count[j] > 0.0) {
                for t in 0..d {
                    centers[j * d + t] = sum[j * d + t] / count[j];
                }
            }
            if last - error < TOLERANCE * error {
                break;
            }
            last = error;
            if count.contains(&0.0) {
                self.refill(&mut centers, &count, &state);
            }
            let moved: Vec<f64> = (0..k)
                .map(|j| {
                    let c = &centers[j * d..(j + 1) * d];
                    let o = &old[j * d..(j + 1) * d];
                    c.iter()
                        .zip(o)
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                        .sqrt()
                })
                .collect();
            let half_gap: Vec<f64> = (0..k)
                .map(|j| {
                    let c = &centers[j * d..(j + 1) * d];
                    let mut gap = f64::INFINITY;
                    for i in (0..k).filter(|&i| i != j) {
                        let o = &centers[i * d..(i + 1) * d];
                        gap = gap.min(c.iter().zip(o).map(|(a, b)| (a - b) * (a - b)).sum());
                    }
                    gap.sqrt() / 2.0
                })
                .collect();
            sums = self.assign(&centers, Some(&Moves { moved, half_gap }), &mut state);
            if sums.iter().all(|s| s.changed == 0) {
                break;
            }
        }
        let (_, error) = self.nearest_all(&centers);
        (centers, error)
    }

    /// Centers without vectors (`count` 0) moved each to the vector
    /// farthest from its own center (the first of equals), a different one
    /// each; none moves when every vector sits on its center.
    fn refill(&self, centers: &mut [f64], count: &[f64], state: &[Bounds]) {
        let d = self.d;
        let mut far: Vec<f64> = (0..self.n)
            .map(|i| {
                let a = state[i].center as usize;
                distance(self.vector(i), &centers[a * d..(a + 1) * d])
            })
            .collect();
        for j in (0..count.len()).filter(|&j| count[j] == 0.0) {
            let mut pick: Option<(usize, f64)> = None;
            for (i, &e) in far.iter().enumerate() {
                if e > pick.map_or(0.0, |p| p.1) {
                    pick = Some((i, e));
                }
            }
            let Some((i, _)) = pick else {
                return;
            };
            far[i] = 0.0;
            for (c, &v) in centers[j * d..(j + 1) * d].iter_mut().zip(self.vector(i)) {
                *c = v as f64;
            }
        }
    }

    /// Hartigan's single moves from `centers` (each vector first at its
    /// nearest): in vector order, a vector moves from its cluster `a` to
    /// `b` when that lowers `E`, `n_b/(n_b+1)·‖x - c_b‖² <
    /// n_a/(n_a-1)·‖x - c_a‖²` (what adding it to `b` costs against what
    /// removing it from `a` saves, the means moving with it), until a pass
    /// moves none or lowers `E` by less than [`TOLERANCE`] of it (or
    /// `HARTIGAN_VISITS / n` passes, at least 1 and at most
    /// [`MAX_ITERATIONS`]); returns the means.
    /// Every fixed point of these moves is one of Lloyd's, not the other
    /// way round: this leaves some of Lloyd's local minima. Sequential, in
    /// vector order.
    fn hartigan(&self, centers: Vec<f64>) -> Vec<f64> {
        let (d, k) = (self.d, centers.len() / self.d);
        let (labels, _) = self.nearest_all(&centers);
        let mut labels: Vec<usize> = labels.into_iter().map(usize::from).collect();
        let mut count = vec![0.0f64; k];
        let mut sum = vec![0.0f64; k * d];
        for (i, &l) in labels.iter().enumerate() {
            count[l] += 1.0;
            for (a, &b) in sum[l * d..(l + 1) * d].iter_mut().zip(self.vector(i)) {
                *a += b as f64;
            }
        }
        let mut means: Vec<f64> = (0..k * d)
            .map(|t| {
                let n = count[t / d];
                if n > 0.0 {
                    sum[t] / n
                } else {
                    centers[t]
                }
            })
            .collect();
        let mut error: f64 = (0..self.n)
            .map(|i| distance(self.vector(i), &means[labels[i] * d..(labels[i] + 1) * d]))
            .sum();
        for _ in 0..(HARTIGAN_VISITS / self.n.max(1)).clamp(1, MAX_ITERATIONS) {
            let mut lowered = 0.0;
            for (i, label) in labels.iter_mut().enumerate() {
                let a = *label;
                if count[a] <= 1.0 {
                    continue;
                }
                let v = self.vector(i);
                let saves = count[a] / (count[a] - 1.0) * distance(v, &means[a * d..(a + 1) * d]);
                // Lower by more than rounding, so no move undoes another.
                let mut best = (a, saves * (1.0 - 1e-12));
                for b in (0..k).filter(|&b| b != a) {
                    let costs =
                        count[b] / (count[b] + 1.0) * distance(v, &means[b * d..(b + 1) * d]);
                    if costs < best.1 {
                        best = (b, costs);
                    }
                }
                let b = best.0;
                if b == a {
                    continue;
                }
                lowered += saves - best.1;
                *label = b;
                count[a] -= 1.0;
                count[b] += 1.0;
                for (t, &x) in v.iter().enumerate() {
                    sum[a * d + t] -= x as f64;
                    sum[b * d + t] += x as f64;
                    means[a * d + t] = sum[a * d + t] / count[a];
                    means[b * d + t] = sum[b * d + t] / count[b];
                }
            }
            error -= lowered;
            if lowered <= TOLERANCE * error {
                break;
            }
        }
        means
    }
}

/// The vector at `r` in the running sum of `d2` (chunk sums `sums`): the
/// first whose running sum exceeds `r`, or the last with a positive `D²`
/// where rounding leaves `r` beyond the total.
fn draw(d2: &[f64], sums: &[f64], mut r: f64) -> usize {
    for (c, &s) in sums.iter().enumerate() {
        if r < s {
            let start = c * CHUNK;
            for (i, &e) in d2[start..(start + CHUNK).min(d2.len())].iter().enumerate() {
                if r < e {
                    return start + i;
                }
                r -= e;
            }
        } else {
            r -= s;
        }
    }
    d2.iter().rposition(|&e| e > 0.0).unwrap_or(0)
}

/// Uniform in `0..n`, from the seedings' fixed random sequence.
fn below(rng: &mut SplitMix64, n: usize) -> usize {
    ((rng.unit() * n as f64) as usize).min(n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random vectors.
    fn random(n: usize, d: usize) -> Vec<f32> {
        let mut rng = SplitMix64(99);
        (0..n * d)
            .map(|_| (rng.unit() * 2.0 - 1.0) as f32 * (1.0 + rng.unit() as f32))
            .collect()
    }

    fn data(x: &[f32], d: usize, threads: usize) -> Data<'_> {
        Data {
            x,
            d,
            n: x.len() / d,
            threads,
        }
    }

    #[test]
    fn separated_clusters_are_found() {
        // Three pairs of vectors far apart, and k = 3.
        let x = [
            10.0f32, 10.0, 0.0, 0.0, 10.5, 10.0, -5.0, 3.0, 0.5, 0.0, -5.0, 3.5,
        ];
        let (centers, labels) = cluster(&x, 2, 3, 1, |v| v);
        assert_eq!(centers, [-5.0, 3.25, 0.25, 0.0, 10.25, 10.0]);
        assert_eq!(labels, [2, 1, 2, 0, 1, 0]);
    }

    #[test]
    fn few_distinct_vectors_keep_their_values() {
        let x = [1.0f32, 2.0, 1.0, 2.0, -1.0, 0.0];
        let (centers, labels) = cluster(&x, 2, 4, 1, |v| v);
        assert_eq!(centers, [-1.0, 0.0, 1.0, 2.0]);
        assert_eq!(labels, [1, 1, 0]);
    }

    #[test]
    fn clusters_do_not_depend_on_the_workers() {
        // Three chunks, on one, two and three workers.
        let x = random(2 * CHUNK + 100, 2);
        let one = cluster(&x, 2, 4, 1, |v| v as f32 as f64);
        for threads in [2, 3] {
            assert_eq!(cluster(&x, 2, 4, threads, |v| v as f32 as f64), one);
        }
    }

    #[test]
    fn bounds_change_no_assignment() {
        // Lloyd's steps with Hamerly's bounds: after each, every vector's
        // center is its nearest (checked against all of them).
        let x = random(5000, 4);
        let data = data(&x, 4, 2);
        let mut centers = data.seed(16, &mut SplitMix64(3));
        let blank = Bounds {
            center: 0,
            upper: 0.0,
            lower: 0.0,
        };
        let mut state = vec![blank; data.n];
        let mut sums = data.assign(&centers, None, &mut state);
        let mut skipped = 0;
        for _ in 0..20 {
            let (count, sum, _) = total(&sums, 16, 4);
            let old = centers.clone();
            for (t, c) in centers.iter_mut().enumerate() {
                *c = sum[t] / count[t / 4];
            }
            let distance_between = |a: &[f64], b: &[f64]| -> f64 {
                a.iter()
                    .zip(b)
                    .map(|(p, q)| (p - q) * (p - q))
                    .sum::<f64>()
                    .sqrt()
            };
            let moved = (0..16)
                .map(|j| distance_between(&centers[j * 4..j * 4 + 4], &old[j * 4..j * 4 + 4]))
                .collect();
            let half_gap = (0..16)
                .map(|j| {
                    (0..16)
                        .filter(|&i| i != j)
                        .map(|i| {
                            distance_between(&centers[j * 4..j * 4 + 4], &centers[i * 4..i * 4 + 4])
                        })
                        .fold(f64::INFINITY, f64::min)
                        / 2.0
                })
                .collect();
            sums = data.assign(&centers, Some(&Moves { moved, half_gap }), &mut state);
            let (labels, _) = data.nearest_all(&centers);
            for (i, b) in state.iter().enumerate() {
                assert_eq!(b.center, labels[i], "vector {i}");
                // A vector checked has its exact distance as the bound.
                let a = b.center as usize;
                let exact = distance(data.vector(i), &centers[a * 4..a * 4 + 4]).sqrt();
                skipped += usize::from(b.upper != exact);
            }
        }
        // The bounds did skip vectors (most of them, once the centers
        // settle).
        assert!(skipped > 20 * 5000 / 2, "{skipped}");
    }

    #[test]
    fn refinement_reaches_a_fixed_point_of_both() {
        // Every vector at its nearest center, every center its vectors'
        // mean, and no single move lowers the error.
        let x = random(3000, 2);
        let (centers, labels) = cluster(&x, 2, 8, 2, |v| v);
        let mut count = [0.0f64; 8];
        let mut sum = [0.0f64; 16];
        for (v, &l) in x.chunks(2).zip(&labels) {
            assert_eq!(nearest(v, &centers, 2).0, l as usize);
            count[l as usize] += 1.0;
            sum[l as usize * 2] += v[0] as f64;
            sum[l as usize * 2 + 1] += v[1] as f64;
        }
        for t in 0..16 {
            assert!((sum[t] / count[t / 2] - centers[t]).abs() <= 1e-12);
        }
        for (v, &l) in x.chunks(2).zip(&labels) {
            let a = l as usize;
            let saves = count[a] / (count[a] - 1.0) * distance(v, &centers[a * 2..a * 2 + 2]);
            for b in (0..8).filter(|&b| b != a) {
                let costs = count[b] / (count[b] + 1.0) * distance(v, &centers[b * 2..b * 2 + 2]);
                assert!(costs >= saves * (1.0 - 1e-9));
            }
        }
    }
}
