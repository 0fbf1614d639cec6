import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { quicPatchChanges, quicVariantPlan, type QuicPatchChange } from '../../bench/lib/quic-variants.ts';

/**
 * A variant copy is reused while its stamp matches (bench/lib/quic-variants.ts). The stamp held the
 * patches and the `within` edits but not the `owns` rules, so a change whose rule alone was edited
 * reused a copy built with the old selection of hunks.
 */
describe('the stamp of a QUIC variant copy', () => {
  const change = quicPatchChanges[0]!;

  it('changes when only a change’s owns rule selects other hunks', () => {
    const edited: QuicPatchChange = { ...change, owns: () => false };
    const before = quicVariantPlan([change]);
    const after = quicVariantPlan([edited]);
    assert.ok(
      before.patches.some((patch) => patch.kept.length > 0),
      `${change.name} owns hunks of patches/`,
    );
    assert.ok(after.patches.every((patch) => patch.kept.length === 0));
    assert.notEqual(after.stamp, before.stamp);
  });

  it('stays the same for the same selection, so an unchanged copy is reused', () => {
    const sameRule: QuicPatchChange = { ...change, owns: (file, hunk) => change.owns(file, hunk) };
    assert.equal(quicVariantPlan([sameRule]).stamp, quicVariantPlan([change]).stamp);
  });
});
