package io.leasehold.examples.boot;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders/{item}}: 200 with the order's fencing token, or 409 when the item is sold out. */
@RestController
public class OrderController {

    private final Stock stock;

    public OrderController(Stock stock) {
        this.stock = stock;
    }

    @PostMapping("/orders/{item}")
    public ResponseEntity<String> order(@PathVariable String item) {
        return stock.order(item)
                .map(token -> ResponseEntity.ok("ordered " + item + " (fencing token " + token + ")"))
                .orElseGet(() -> ResponseEntity.status(409).body(item + " is sold out"));
    }
}
