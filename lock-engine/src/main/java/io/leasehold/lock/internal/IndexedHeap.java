package io.leasehold.lock.internal;

import java.util.Arrays;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * A binary min-heap whose elements remember where they are in it, so that any element can be
 * removed in O(log n), not searched for in O(n) as {@link java.util.PriorityQueue#remove(Object)}
 * does. {@link #add}, {@link #poll} and {@link #remove} are O(log n), {@link #peek} O(1).
 *
 * <p>Each element keeps its index through the heap's {@link Position}, so one element can be in
 * several heaps at once (one position field per heap), and in each at most once.
 *
 * <p>Not threadsafe: its owner guards it.
 *
 * @param <E> the element type
 */
final class IndexedHeap<E> {

    /** Where an element keeps its index in one heap: -1 while it is not in it. */
    interface Position<E> {
        int get(E element);

        void set(E element, int index);
    }

    private static final int INITIAL_CAPACITY = 16;

    private final Comparator<? super E> order;
    private final Position<E> position;
    private Object[] elements = new Object[INITIAL_CAPACITY];
    private int size;

    IndexedHeap(Comparator<? super E> order, Position<E> position) {
        this.order = order;
        this.position = position;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Adds {@code element}, which must not be in this heap already. */
    void add(E element) {
        if (position.get(element) >= 0) {
            throw new IllegalStateException("element is already in the heap: " + element);
        }
        if (size == elements.length) {
            elements = Arrays.copyOf(elements, size * 2);
        }
        size++;
        siftUp(size - 1, element);
    }

    /** The least element, or null when empty. */
    @Nullable
    E peek() {
        return size == 0 ? null : at(0);
    }

    /** Removes and returns the least element, or null when empty. */
    @Nullable
    E poll() {
        if (size == 0) {
            return null;
        }
        E least = at(0);
        removeAt(0);
        return least;
    }

    /** Removes {@code element} if it is in this heap; returns whether it was. */
    boolean remove(E element) {
        int index = position.get(element);
        if (index < 0 || index >= size || elements[index] != element) {
            return false;
        }
        removeAt(index);
        return true;
    }

    private void removeAt(int index) {
        E removed = at(index);
        position.set(removed, -1);
        size--;
        E last = at(size);
        elements[size] = null;
        if (index < size) {
            // The last element fills the hole; it may belong above or below it.
            siftDown(index, last);
            if (elements[index] == last) {
                siftUp(index, last);
            }
        }
        if (elements.length > INITIAL_CAPACITY && size < elements.length / 4) {
            elements = Arrays.copyOf(elements, elements.length / 2); // give back what a burst of leases took
        }
    }

    private void siftUp(int index, E element) {
        int at = index;
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            E above = at(parent);
            if (order.compare(element, above) >= 0) {
                break;
            }
            place(above, at);
            at = parent;
        }
        place(element, at);
    }

    private void siftDown(int index, E element) {
        int at = index;
        int half = size >>> 1;
        while (at < half) {
            int child = 2 * at + 1;
            E smaller = at(child);
            int right = child + 1;
            if (right < size && order.compare(at(right), smaller) < 0) {
                child = right;
                smaller = at(right);
            }
            if (order.compare(element, smaller) <= 0) {
                break;
            }
            place(smaller, at);
            at = child;
        }
        place(element, at);
    }

    private void place(E element, int index) {
        elements[index] = element;
        position.set(element, index);
    }

    @SuppressWarnings("unchecked")
    private E at(int index) {
        return (E) elements[index];
    }
}
