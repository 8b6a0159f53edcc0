import { Temporal } from 'temporal-polyfill';
import { at, block, dayColumn, expect, HOUR_PX, scheduledTask, signIn, test, USER_TZ } from './fixtures.js';

/** The next Sunday on which America/New_York changes its offset (March or November), at least a week ahead. */
function nextDstSunday(): Temporal.PlainDate {
  let day = Temporal.Now.plainDateISO(USER_TZ).add({ days: 7 });
  for (let i = 0; i < 400; i += 1, day = day.add({ days: 1 })) {
    const start = day.toZonedDateTime(USER_TZ);
    if (start.offsetNanoseconds !== start.add({ days: 1 }).offsetNanoseconds) return day;
  }
  throw new Error('no DST change within a year');
}

test('in a week with a daylight-saving change, every block sits at its true local time (browser in Tokyo)', async ({
  page,
  person,
}) => {
  const sunday = nextDstSunday();
  const monday = sunday.subtract({ days: 6 });
  const days = { saturday: sunday.subtract({ days: 1 }), sunday, nextMonday: sunday.add({ days: 1 }) };
  await scheduledTask(person, 'Before the change', at(days.saturday, '09:00'), at(days.saturday, '09:30'));
  await scheduledTask(person, 'On the change', at(sunday, '09:00'), at(sunday, '10:30'));
  await scheduledTask(person, 'Night of the change', at(sunday, '00:30'), at(sunday, '04:00'));

  await signIn(page, person, `/calendar/week/${monday.toString()}`);
  await expect(page.getByText(USER_TZ)).toBeVisible();
  expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('Asia/Tokyo');

  await expect(block(page, 'Before the change')).toHaveAccessibleName('Before the change, Saturday 09:00 to 09:30');
  await expect(block(page, 'On the change')).toHaveAccessibleName('On the change, Sunday 09:00 to 10:30');
  await expect(block(page, 'Night of the change')).toHaveAccessibleName('Night of the change, Sunday 00:30 to 04:00');

  // Positions: the top of each block is its wall-clock start in the settings timezone.
  const topOf = async (title: string, date: Temporal.PlainDate) => {
    const [b, column] = await Promise.all([block(page, title).boundingBox(), dayColumn(page, date)]);
    if (!b) throw new Error(`${title} is not on screen`);
    return {
      top: (b.y - column.y) / HOUR_PX,
      height: (b.height + 2) / HOUR_PX,
      x: b.x,
      left: column.x,
      right: column.x + column.width,
    };
  };
  const before = await topOf('Before the change', days.saturday);
  expect(before.top).toBeCloseTo(9, 1);
  const on = await topOf('On the change', sunday);
  expect(on.top).toBeCloseTo(9, 1);
  expect(on.height).toBeCloseTo(1.5, 1);
  const night = await topOf('Night of the change', sunday);
  expect(night.top).toBeCloseTo(0.5, 1);
  expect(night.height).toBeCloseTo(3.5, 1);
  // In Sunday's column, not in the browser's Sunday (Tokyo is half a day ahead).
  for (const b of [on, night]) {
    expect(b.x).toBeGreaterThanOrEqual(b.left);
    expect(b.x).toBeLessThan(b.right);
  }

  // The day view of the change shows the same wall-clock times.
  await page.goto(`/calendar/day/${sunday.toString()}`);
  await expect(block(page, 'On the change')).toHaveAccessibleName('On the change, Sunday 09:00 to 10:30');
  expect((await topOf('On the change', sunday)).top).toBeCloseTo(9, 1);
});
