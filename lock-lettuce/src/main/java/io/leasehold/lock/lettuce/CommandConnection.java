package io.leasehold.lock.lettuce;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;

/**
 * The connection scripts run on, standalone or cluster alike: the stateful connection (to close it)
 * and its asynchronous commands (to dispatch on).
 */
record CommandConnection(
        StatefulConnection<String, String> connection, BaseRedisAsyncCommands<String, String> commands) {}
