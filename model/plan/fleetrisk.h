// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <QString>
#include <functional>
#include <optional>

namespace Headroom {

struct CapacityResult;

/// The overflow risk of a whole fleet of replicas (issue 29). A replica is one model copy
/// (a TP x PP group) with its own KV pool; the fleet is the replicas serving the target
/// sessions (ceil(target / sessions per replica)), else --dp of them.
///
/// Replicas are taken as independent: each holds its own sessions, whose lengths are
/// independent draws of the distribution, so one replica's overflow says nothing of
/// another's. (A burst of long sessions routed everywhere at once would correlate them;
/// the figure does not cover that.)
namespace FleetRisk {

/// P(at least one of `replicas` independent replicas overflows) when each overflows with
/// probability `perReplica` (0 to 1): 1 - (1 - p)^R, computed as -expm1(R x log1p(-p)), so
/// that a small p keeps its digits (1e-12 over 10 replicas is 1e-11, where 1 - pow(1 - p, R)
/// loses it to round-off). 0 replicas: 0. A p of 1 (or more): 1.
double fleetOverflowProbability(double perReplica, qint64 replicas);

/// The per-replica risk at which `replicas` (>= 1) independent replicas overflow together
/// with probability `fleetRisk` (0 to below 1): the inverse of fleetOverflowProbability,
/// 1 - (1 - P)^(1 / R) = -expm1(log1p(-P) / R). One replica: P itself.
double replicaRiskFor(double fleetRisk, qint64 replicas);

/// Most rounds solve() takes before it gives up (see solve()).
constexpr int maxRounds = 64;

/// What solve() settled: each replica's risk, its sessions at that risk, and the replicas.
struct Solution
{
    double replicaRisk = 0;  ///< the risk each replica is admitted at
    qint64 sessions = 0;     ///< sessions per replica at replicaRisk (sessionsAt(replicaRisk))
    qint64 replicas = 0;     ///< replicas of the fleet (0: a target no replica holds a session of)
    int rounds = 0;          ///< rounds of the iteration taken
};

/// Each replica's risk such that the fleet as a whole overflows with probability at most
/// `fleetRisk`, and the most sessions per replica that allows.
///
/// Inputs: `fleetRisk` (the accepted P(some replica overflows)); `target` sessions of the
/// whole fleet (empty: the fleet is `replicasWithoutTarget`, --dp, replicas); `sessionsAt(p)`,
/// the sessions one replica holds at risk p (the largest N whose overflow probability is at
/// most p; non-decreasing in p); `floorRisk` the smallest risk sessionsAt() takes; `field`
/// names the input in errors.
///
/// Without a target R is fixed: p = replicaRiskFor(P, R). With one, R = ceil(target / N)
/// depends on N = sessionsAt(p), which depends on p: the rounds start at R = 1 and repeat
/// p = replicaRiskFor(P, R), N = sessionsAt(p), R = ceil(target / N) until R stops changing.
/// Why it ends, and at the right count: write F(N) = sessionsAt(replicaRiskFor(P,
/// ceil(target / N))). F is non-decreasing in N (more sessions per replica, fewer replicas,
/// a larger per-replica risk, no fewer sessions). A count N is admissible when its own
/// fleet meets P, i.e. N <= F(N). The first round gives N0 = sessionsAt(P) >= every
/// admissible N (each replica's risk is at most P). If N_k >= N* for an admissible N*, then
/// N_{k+1} = F(N_k) >= F(N*) >= N*: every round stays above every admissible count. And the
/// counts never grow (N1 <= N0 as R >= 1; then F monotone carries N_{k+1} <= N_k on), so R
/// never shrinks: the sequence of R is monotone, each round before the last lowers N by at
/// least one, and it stops at the fixed point N = F(N), which is admissible, hence the
/// largest admissible count. In practice two to four rounds (N moves with log p); past
/// maxRounds InputError(field) says so rather than answer unsettled.
///
/// Errors: InputError(field) when a replica's risk would fall below `floorRisk` (a fleet too
/// large for the risk solver), or the rounds do not settle.
Solution solve(double fleetRisk, std::optional<qint64> target, qint64 replicasWithoutTarget,
               const std::function<qint64(double)> &sessionsAt, double floorRisk, const QString &field);

/// Which of the two risks the plan holds and what the other comes to, in one short phrase
/// for the command line, the window and the report: "each card at a risk of 1 in 100;
/// the fleet of 33 cards: 28% that some card overflows", or with --fleet-risk "the fleet of
/// 33 replicas at 1 in 100; each replica at 1 in 3,300". "Card" where a replica is one GPU,
/// else "replica". Empty when the plan does not answer by a risk (no distribution, or
/// preallocated sessions), has no fleet, or is one replica at the risk it was given.
QString words(const Scenario &scenario, const CapacityResult &result);

} // namespace FleetRisk
} // namespace Headroom
