// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>
#include <vector>

namespace Headroom {

/// One request of a traffic trace, in the trace's order (arrivals never decrease).
struct TrafficRequest
{
    double arrivalSeconds = 0; ///< from the trace's first arrival, seconds
    qint64 promptTokens = 0;   ///< the prompt (input_length, ContextTokens), tokens
    qint64 outputTokens = 0;   ///< tokens generated (output_length, GeneratedTokens)
    qint64 line = 0;           ///< the line of the file it was read from
    qint64 firstBlock = 0;     ///< its first prefix-block id in TrafficTrace::blocks
    qint32 blockCount = 0;     ///< how many prefix-block ids it has (0 without hash_ids)
    qint32 conversation = -1;  ///< the conversation it belongs to, 0 .. conversations - 1
    bool holdsCommonPrefix = false; ///< its first blocks are the trace's whole common prefix (buildConversations)
};

/// A trace of arrivals as a fleet sees them: requests with their arrival time, prompt and
/// output lengths, and, where the trace gives them, the prompt's prefix blocks and the
/// conversation each request belongs to.
///
/// Formats: Mooncake's JSON lines (kvcache-ai/Mooncake, FAST25-release/traces: "timestamp"
/// in milliseconds, "input_length", "output_length", "hash_ids": the prompt as blocks of 512
/// tokens, each an id; equal ids at the same position are a reusable prefix), optionally with
/// a "conversation_id" or "session_id" per line; and the CSV traces LengthDistribution reads
/// (Azure LLM inference: TIMESTAMP,ContextTokens,GeneratedTokens; BurstGPT), which carry no
/// prefix and no conversation, so that each request is its own conversation.
///
/// Conversations (`conversationRule()` names the one used):
/// - an id column: requests with the same conversation_id (or session_id) are one;
/// - prefix blocks: the common prefix is the longest run of leading blocks that more than half
///   of all requests share (Mooncake's conversation hour: block 0, the system prompt, in all
///   12,031). A request continues the conversation of the earlier requests whose first block
///   beyond that common prefix it shares: a later turn's prompt repeats the earlier turns, so
///   it begins with the same blocks. A request with no block of its own beyond the common
///   prefix is a conversation of its own;
/// - neither: each request is a conversation (the per-request meaning of a length trace).
struct TrafficTrace
{
    /// Mooncake's prefix blocks: 512 tokens each (Mooncake FAST25-release/traces README: "the
    /// block size is 512").
    static constexpr qint64 mooncakeBlockTokens = 512;
    /// The longest span a trace may cover (31 days): the replay's timeline has a point per 10 s.
    static constexpr double maxDurationSeconds = 31.0 * 86400.0;
    /// The largest file read (1 GiB): a day of a million Mooncake requests is about 250 MB.
    static constexpr qint64 maxFileBytes = qint64(1) << 30;

    QString path;
    QVector<TrafficRequest> requests;
    std::vector<qint64> blocks;  ///< every request's prefix-block ids, one after another
    qint64 blockTokens = mooncakeBlockTokens; ///< tokens per prefix block
    bool hasBlocks = false;          ///< some request carries hash_ids
    bool hasConversationIds = false; ///< the trace names each request's conversation
    qint64 conversations = 0;
    int commonPrefixBlocks = 0;      ///< blocks shared by more than half of all requests, from the first
    qint64 commonPrefixTokenCount = 0; ///< their tokens (the last block may be partial)
    double durationSeconds = 0;      ///< last arrival - first arrival

    /// Reads a trace with arrivals. Throws InputError(field) naming the file, the line and the
    /// field of the first fault: a missing or malformed timestamp, a decreasing arrival, a
    /// span beyond 31 days, a negative or absurd length (beyond 2^53 tokens), hash_ids that
    /// are not whole numbers from 0 to below 2^53 (beyond, JSON readers lose exactness) or
    /// that are not one per 512-token block of the prompt, a line cut off, a file beyond 1 GiB,
    /// more than maxRequests requests, or no request with an arrival.
    static TrafficTrace read(const QString &path, const QString &field);

    /// Builds the conversations (see the struct's rule) from the requests as read; called by
    /// read(). Exposed for traces made in memory (tests, the --users tiling).
    void buildConversations();
    /// "conversation_id", "hash_ids" or "none": which rule made the conversations.
    QString conversationRule() const;
    /// The tokens of the common prefix (system prompt), held once per card.
    qint64 commonPrefixTokens() const { return commonPrefixTokenCount; }
    /// The most requests a trace (or a scaled copy of one) may hold: 10^7, about 2.5 GB of
    /// requests and prefix blocks in memory.
    static constexpr qsizetype maxRequests = 10'000'000;
    /// The prefix-block ids of request `i`.
    const qint64 *blocksOf(qsizetype i) const { return blocks.data() + requests.at(i).firstBlock; }
    /// Tokens of block `k` of request `i`: blockTokens, less for the prompt's last, partial block.
    qint64 blockTokensOf(qsizetype i, qint32 k) const;
    /// Prompt tokens an unbounded prefix cache would have served, in the trace's block
    /// granularity: for each request in order, its leading blocks that some earlier request
    /// held (min(blocks x block tokens, prompt)). The ceiling of any replay's prefix hits.
    qint64 prefixHitCeilingTokens() const;
    /// Sum of the prompts, tokens.
    qint64 promptTokens() const;
};

} // namespace Headroom
