/**
 * The history of a safety run: what every worker process did, in a line format that any process can
 * append to and that {@link io.leasehold.lock.history.checker.HistoryChecker} reads.
 *
 * <h2>Format</h2>
 * A history is one or more files of JSON lines (UTF-8, one JSON object per line, {@code .jsonl}),
 * usually one file per process; their order does not matter. Every record has {@code type} and
 * {@code process}. Times are integers: microseconds since the epoch on the host's real-time clock
 * ({@link io.leasehold.lock.history.HistoryClock} says why that clock). Fencing tokens are
 * decimal strings (integers are accepted on reading). Optional fields are left out when absent;
 * fields the reader does not know are ignored.
 *
 * <table>
 *   <caption>Record types</caption>
 *   <tr><th>type</th><th>fields</th><th>written</th></tr>
 *   <tr><td>{@code process-start}</td><td>time</td><td>first, by each worker</td></tr>
 *   <tr><td>{@code acquire}</td><td>lock, start, end, outcome ({@code ACQUIRED|TIMEOUT|ERROR|CANCELLED}),
 *       token (when acquired), error?</td><td>when an acquire attempt returned</td></tr>
 *   <tr><td>{@code section-start}</td><td>lock, token, time</td><td>after the acquire returned, before the
 *       first access</td></tr>
 *   <tr><td>{@code access}</td><td>lock, resource, op ({@code READ|WRITE}), token, outcome
 *       ({@code ACCEPTED|REJECTED|UNKNOWN}), value?, seq?, start, end, error?</td><td>after each access to the
 *       fenced resource</td></tr>
 *   <tr><td>{@code loss}</td><td>lock, token, reason, time (the engine's detection), seen (the callback)</td>
 *       <td>from {@code lease.lost()} and/or a {@link io.leasehold.lock.history.LossSignalListener}</td></tr>
 *   <tr><td>{@code section-end}</td><td>lock, token, time, ending ({@code RELEASED|NOT_HELD|LOST|RELEASE_FAILED})</td>
 *       <td>time read after the last access, before the release; written after the release</td></tr>
 *   <tr><td>{@code process-end}</td><td>time</td><td>last, by each worker that finished</td></tr>
 *   <tr><td>{@code fault}</td><td>kind, effect ({@code DATA_LOSS|PAUSE|KILL|OTHER}), target?, start, end</td>
 *       <td>by whoever injected a fault</td></tr>
 *   <tr><td>{@code resource-state}</td><td>resource, value, highest?, seq, time</td><td>after the run, from
 *       {@link io.leasehold.lock.history.fencing.ResourceSnapshot}</td></tr>
 *   <tr><td>{@code resource-update}</td><td>resource, seq, token, previous, value, time</td><td>after the run,
 *       one per accepted write in the resource's log</td></tr>
 * </table>
 *
 * <p>For example, a worker's section:
 * <pre>
 * {"type":"acquire","process":"w1","lock":"L","start":1764072000000000,"end":1764072000001250,"outcome":"ACQUIRED","token":"1764072000000900"}
 * {"type":"section-start","process":"w1","lock":"L","token":"1764072000000900","time":1764072000001300}
 * {"type":"access","process":"w1","lock":"L","resource":"counter","op":"READ","token":"1764072000000900","outcome":"ACCEPTED","value":41,"seq":83,"start":1764072000001310,"end":1764072000001400}
 * {"type":"access","process":"w1","lock":"L","resource":"counter","op":"WRITE","token":"1764072000000900","outcome":"ACCEPTED","value":42,"seq":84,"start":1764072000001410,"end":1764072000001500}
 * {"type":"section-end","process":"w1","lock":"L","token":"1764072000000900","time":1764072000001510,"ending":"RELEASED"}
 * </pre>
 *
 * <p>A section is identified by its process, lock and token; its accesses and losses by the same three.
 * {@link io.leasehold.lock.history.HistoryWriter} appends records (flushing each, so a killed
 * process loses at most the line it was writing) and {@link io.leasehold.lock.history.HistoryReader}
 * reads files and directories back (skipping, with a note, a cut last line).
 */
package io.leasehold.lock.history;
