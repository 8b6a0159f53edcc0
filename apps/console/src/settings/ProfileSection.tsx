import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { keys, type Settings, useMe, useSettings } from '../api/queries.js';
import { Field } from '../ui/Field.js';
import { QueryView } from '../ui/states.js';
import { Outcome, Section } from './Section.js';

/** Name and timezone: the calendar, plans and "today" all run in this timezone. */
export function ProfileSection() {
  const settings = useSettings();
  return (
    <Section id="profile" title="Profile">
      <QueryView query={settings} label="Loading the profile" rows={2}>
        {(s) => <ProfileForm settings={s} />}
      </QueryView>
    </Section>
  );
}

function ProfileForm({ settings }: { settings: Settings }) {
  const me = useMe();
  const queryClient = useQueryClient();
  const [name, setName] = useState(me.data?.name ?? '');
  const [timezone, setTimezone] = useState(settings.timezone);
  const save = useMutation({
    mutationFn: async () => {
      if (name && name !== me.data?.name) data(await api.PATCH('/api/v1/auth/me', { body: { name } }));
      return data(await api.PATCH('/api/v1/service/settings/me', { body: { timezone } }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.settings });
      void queryClient.invalidateQueries({ queryKey: keys.me });
      void queryClient.invalidateQueries({ queryKey: keys.events });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Form className="stack" onSubmit={submit} validationErrors={fieldErrors(save.error)}>
      <p className="muted">Signed in as {me.data?.email}</p>
      <div className="grid-2">
        <Field label="Name" name="name" value={name} onChange={setName} />
        <Field label="Timezone" name="timezone" placeholder="Europe/Berlin" value={timezone} onChange={setTimezone} />
      </div>
      <Outcome
        error={save.isError ? problemText(save.error) : undefined}
        saved={save.isSuccess ? 'Profile saved.' : undefined}
      />
      <Button type="submit" className="btn btn-primary" isDisabled={save.isPending}>
        Save profile
      </Button>
    </Form>
  );
}
