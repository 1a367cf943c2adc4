package io.leasehold.lock.history.checker;

/** Identifies one section (one lease) in the history: its process, lock and token. */
record SectionKey(String process, String lock, long token) {

    @Override
    public String toString() {
        return process + "/" + lock + "/" + token;
    }
}
