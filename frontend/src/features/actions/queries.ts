import { graphql } from "../../gql";

/** The new deploy an action started: its page is where the result shows, live. */
export const PromoteMutation = graphql(`
  mutation PromoteDeployment($id: ID!, $to: String!) {
    promote(id: $id, to: $to) {
      id
      state
    }
  }
`);

export const RedeployMutation = graphql(`
  mutation RedeployDeployment($id: ID!) {
    redeploy(id: $id) {
      id
      state
    }
  }
`);

export const RollbackEnvironmentMutation = graphql(`
  mutation RollbackEnvironment($application: String!, $environment: String!, $tenant: String, $to: ID) {
    rollback(application: $application, environment: $environment, tenant: $tenant, to: $to) {
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
