"""Several ``glossary serve`` replicas behind nginx, sessions in Redis (docs/DEPLOY.md).

- :mod:`kg.deploy.nginx`: the nginx configuration (one template: the run-directory config of
  ``glossary deploy-local`` and the ``conf.d`` example of ``glossary nginx-config``);
- :mod:`kg.deploy.processes`: starting, waiting for and stopping the child processes;
- :mod:`kg.deploy.local`: the whole deployment on loopback (Redis, replicas, nginx).

No FastAPI here: the replicas are ``glossary serve`` processes.
"""
