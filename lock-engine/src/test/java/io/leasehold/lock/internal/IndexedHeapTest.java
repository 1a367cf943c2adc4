package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The indexed heap: a priority queue whose elements can be removed wherever they are. */
class IndexedHeapTest {

    /** An element that keeps its index, as the schedule's entries do. */
    private static final class Item {
        final int value;
        int index = -1;

        Item(int value) {
            this.value = value;
        }
    }

    private static IndexedHeap<Item> heap() {
        return new IndexedHeap<>(Comparator.comparingInt(item -> item.value), new IndexedHeap.Position<>() {
            @Override
            public int get(Item item) {
                return item.index;
            }

            @Override
            public void set(Item item, int index) {
                item.index = index;
            }
        });
    }

    @Test
    void shouldPollInOrderAndRemoveFromAnywhere() {
        IndexedHeap<Item> heap = heap();
        List<Item> items = new ArrayList<>();
        for (int value : new int[] {5, 3, 9, 1, 7, 3}) {
            Item item = new Item(value);
            items.add(item);
            heap.add(item);
        }

        assertThat(heap.remove(items.get(2))).isTrue(); // 9, from the middle
        assertThat(heap.remove(items.get(2))).as("removed twice").isFalse();
        assertThat(items.get(2).index).isEqualTo(-1);

        List<Integer> polled = new ArrayList<>();
        for (Item item = heap.poll(); item != null; item = heap.poll()) {
            polled.add(item.value);
        }
        assertThat(polled).containsExactly(1, 3, 3, 5, 7);
        assertThat(heap.isEmpty()).isTrue();
    }

    @Test
    void shouldAgreeWithAPriorityQueueOverRandomAddsPollsAndRemovals() {
        Random random = new Random(7);
        IndexedHeap<Item> heap = heap();
        PriorityQueue<Item> reference = new PriorityQueue<>(Comparator.comparingInt(item -> item.value));
        List<Item> inside = new ArrayList<>();
        for (int step = 0; step < 50_000; step++) {
            int action = random.nextInt(3);
            if (action == 0 || inside.isEmpty()) {
                Item item = new Item(random.nextInt(1_000));
                heap.add(item);
                reference.add(item);
                inside.add(item);
            } else if (action == 1) {
                Item item = inside.remove(random.nextInt(inside.size()));
                assertThat(heap.remove(item)).isTrue();
                reference.remove(item);
            } else {
                Item polled = heap.poll();
                assertThat(polled.value).isEqualTo(reference.peek().value);
                reference.remove(polled);
                inside.remove(polled);
            }
            assertThat(heap.size()).isEqualTo(reference.size());
            if (!reference.isEmpty()) {
                assertThat(heap.peek().value).isEqualTo(reference.peek().value);
            }
        }
    }
}
