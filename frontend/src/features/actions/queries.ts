import { graphql } from "../../gql";

/**
 * The new deploy an action started: its page is where the result shows, live. Each
 * names it (newId, id: newDeployId), so that the same request sent again after a
 * lost answer is answered with that deploy instead of starting a second one.
 */
export const PromoteMutation = graphql(`
  mutation PromoteDeployment($id: ID!, $to: String!, $newId: ID!) {
    promote(id: $id, to: $to, newId: $newId) {
      id
      state
    }
  }
`);

export const RedeployMutation = graphql(`
  mutation RedeployDeployment($id: ID!, $newId: ID!) {
    redeploy(id: $id, newId: $newId) {
      id
      state
    }
  }
`);

export const RollbackEnvironmentMutation = graphql(`
  mutation RollbackEnvironment($application: String!, $environment: String!, $tenant: String, $to: ID, $id: ID!) {
    rollback(application: $application, environment: $environment, tenant: $tenant, to: $to, id: $id) {
      id
      state
    }
  }
`);

export const CancelReleaseMutation = graphql(`
  mutation CancelRelease($id: ID!) {
    cancelRelease(id: $id) {
      id
      state
      canCancel
    }
  }
`);

export const DeleteScheduleMutation = graphql(`
  mutation DeleteSchedule($name: String!) {
    deleteSchedule(name: $name)
  }
`);
