package io.leasehold.examples.boot;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The flash sale as a Spring Boot application: {@code POST /orders/{item}} takes one of the item's
 * stock, under the item's lock ({@link Stock#order}). The lock client is the starter's, built from
 * {@code spring.data.redis.*}.
 */
@SpringBootApplication
public class FlashSaleApplication {}
