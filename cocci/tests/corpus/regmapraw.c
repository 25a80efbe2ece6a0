// SPDX-License-Identifier: GPL-2.0
/* Corpus: regmap with a raw spinlock is fine in an irq_chip callback. */
static const struct regmap_config rr_config = {
	.reg_bits = 32,
	.val_bits = 32,
	.fast_io = true,
	.use_raw_spinlock = true,
};

static void rr_mask(struct irq_data *d)
{
	struct regmap *map = irq_data_get_irq_chip_data(d);

	regmap_update_bits(map, 0x10, 1, 0);
}

static struct irq_chip rr_chip = {
	.name = "rr",
	.irq_mask = rr_mask,
};
